/**
 * A light, steady load for fault tests: a few clients, each sending one request after another, every answer
 * recorded (status, Retry-After, problem code and dependency, how long it took) until stopped.
 */
import type { Stack } from '@conduit/testing';
import { call } from './client.js';

export interface Operation {
  method: 'GET' | 'POST';
  path: string;
  body?: Record<string, unknown>;
  /** A label to find the answers of one kind of request. */
  kind: string;
  /** A JWT instead of the bootstrap API key: its check needs no database, so the request reaches the services. */
  bearer?: string;
  headers?: Record<string, string>;
}

export interface Answer {
  kind: string;
  body?: Record<string, unknown> | undefined;
  status: number;
  retryAfter: string | null;
  code: string | undefined;
  dependency: string | undefined;
  /** The created resource's id, on a 201 or 202. */
  id: string | undefined;
  /** The problem document's request_id: ties an unexpected answer to the services' log lines. */
  requestId?: string | undefined;
  ms: number;
  /** When it was sent, ms since the epoch. */
  at: number;
}

export interface Load {
  answers: Answer[];
  /** Stops sending and waits for the requests under way. */
  stop(): Promise<Answer[]>;
}

/**
 * Loads not stopped yet: a test that fails before its own `stop()` would leave them sending, into the next test and
 * past the file, and jest never exits. What the stopped ones still wait for, too.
 */
const running = new Set<Load>();
const ending: Promise<unknown>[] = [];

/**
 * Stops every load sending, without waiting for the requests under way (one may hang on a stack the test broke):
 * for afterEach, and for FaultStack.destroy before the stack goes, whose end makes those requests fail.
 */
export function haltLoads(): void {
  for (const load of running) ending.push(load.stop());
}

/** Resolves once every halted load's requests have ended; for FaultStack.destroy, after the stack is gone. */
export async function haltedLoadsEnded(): Promise<void> {
  await Promise.allSettled(ending.splice(0));
}

/** `clients` loops, each picking its next operation from `next` (called with a running count). */
export function startLoad(stack: Stack, clients: number, next: (n: number) => Operation): Load {
  const answers: Answer[] = [];
  let sending = true;
  let count = 0;
  const loop = async () => {
    while (sending) {
      const op = next(count++);
      const at = Date.now();
      try {
        const res = await call(stack, op.method, op.path, {
          ...(op.body && { body: op.body }),
          ...(op.bearer && { bearer: op.bearer }),
          ...(op.headers && { headers: op.headers }),
        });
        const body = res.body as { code?: string; dependency?: string; id?: string; request_id?: string } | undefined;
        answers.push({
          kind: op.kind,
          body: op.body,
          status: res.status,
          retryAfter: res.headers.get('retry-after'),
          code: body?.code,
          dependency: body?.dependency,
          id: res.status === 201 || res.status === 202 ? body?.id : undefined,
          requestId: body?.request_id,
          ms: Date.now() - at,
          at,
        });
      } catch (err) {
        // The gateway itself must stay up: a refused connection is recorded as status 0 and fails the test.
        answers.push({
          kind: op.kind,
          body: op.body,
          status: 0,
          retryAfter: null,
          code: String(err),
          dependency: undefined,
          id: undefined,
          ms: Date.now() - at,
          at,
        });
      }
    }
  };
  const loops = Array.from({ length: clients }, () => loop());
  let ended: Promise<Answer[]> | undefined;
  const load: Load = {
    answers,
    stop() {
      sending = false;
      running.delete(load);
      ended ??= Promise.all(loops).then(() => answers);
      return ended;
    },
  };
  running.add(load);
  return load;
}

/**
 * Answers that are neither a success nor a 503 with Retry-After and a dependency class: what a fault test forbids.
 * Each comes with the stack's log lines of its request (and the error lines around it), so a failure says why.
 */
export function unexpectedAnswers(answers: Answer[], stack?: Stack): Array<Answer & { logs?: string[] }> {
  return answers
    .filter(
      (a) =>
        !(a.status >= 200 && a.status < 300) &&
        !(
          a.status === 503 &&
          Number(a.retryAfter) > 0 &&
          ['database', 'redis', 'service'].includes(a.dependency ?? '')
        ),
    )
    .map((a) => (stack ? { ...a, logs: logsAbout(stack, a) } : a));
}

function logsAbout(stack: Stack, answer: Answer): string[] {
  const lines = stack.logs().split('\n');
  const about = lines.filter((line) => answer.requestId !== undefined && line.includes(answer.requestId));
  const errors = lines.filter((line) => /"level":"error"|"level":50/.test(line) && !/"component":"typeorm"/.test(line));
  return [...about, ...errors].map((line) => line.slice(0, 1500));
}

/** GET /readyz of a service process (the gateway's is on its API port): status and the body's checks. */
export async function readiness(port: number): Promise<{ status: number; checks: Record<string, string> }> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  const body = (await res.json()) as { checks?: Record<string, string> };
  return { status: res.status, checks: body.checks ?? {} };
}
