/**
 * A tenant's SELECT (a transform's SQL, a rules decision's) is bound first in the process's SQL-check child
 * (isolatedBind, packages/connectors), against the run's finished node tables declared by their exact columns, and
 * the executor binds it itself only when the child bound it whole. Binding computes whatever DuckDB's binder needs,
 * outside the run's memory limit and past interrupts: a table function's arguments, a JSON path, a pattern
 * (`json_extract(s, repeat('$', 2000000000))` took 2 GB and 30 s of the executor). In the child an allocation past its
 * data-size limit fails. SQL the child did not bind whole (any error, a table not finished yet) fails its node with
 * the child's message: the executor never binds what it could not check. A tenant has one such check in flight at a
 * time, so its slow SQL holds only its own nodes; and the executor binds at most PLAN_SLOTS checked statements at once.
 * A verdict is kept per tenant, SQL and the tables it was bound against: a pipeline's next runs ask nothing.
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { bindInputOf, isolatedBind, type BindOutcome } from '@conduit/connectors';
import { LruCopies } from '@conduit/service-kit';
import { NodeFailure } from '../node-failure.js';
import type { NodeContext } from '../node-context.js';

/** How long the child may take to bind one statement (the first call also starts the child: ~0.3 s). */
export const PLAN_BUDGET_MS = 5_000;
/** Checked statements the executor binds at once: each may take what it took in the child. */
const PLAN_SLOTS = 2;

/** SQL the child bound whole, by planKey. */
const bound = new LruCopies<true>({ maxEntries: 2_000, ttlMs: 60 * 60_000 });
/** Each tenant's check in flight: the next waits for it. */
const inFlight = new Map<string, Promise<unknown>>();

/** DuckDB's messages for an allocation that failed: the child's data-size limit, not the SQL. */
const OUT_OF_MEMORY = /^(Out of Memory Error|.*memory allocation failed|.*std::bad_alloc)/i;

/** The tenant, the SQL and the tables bound against, hashed: bounded in size whatever the SQL's length. */
const planKey = (tenantId: string, sql: string, tablesDigest: Buffer): string =>
  createHash('sha256')
    .update(tablesDigest)
    .update(JSON.stringify([tenantId, sql]))
    .digest('base64');

/** `work` after the tenant's check in flight, if any. */
function oneAtATime<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
  const before = inFlight.get(tenantId) ?? Promise.resolve();
  const mine = before.then(work, work);
  const settled = mine.then(
    () => undefined,
    () => undefined,
  );
  inFlight.set(tenantId, settled);
  void settled.then(() => {
    if (inFlight.get(tenantId) === settled) inFlight.delete(tenantId);
  });
  return mine;
}

function failureOf(outcome: Exclude<BindOutcome, { kind: 'bound' }> | undefined, subject: string): NodeFailure {
  if (outcome === undefined) {
    // Slow planning, or a child that could not start or was restarted twice meanwhile: another attempt may pass.
    return new NodeFailure(`${subject} could not be planned within ${PLAN_BUDGET_MS / 1000} s`, true);
  }
  switch (outcome.kind) {
    case 'undeclared':
      return new NodeFailure(
        `${subject} could not be checked: the columns of table "${outcome.table}" cannot be declared again`,
        false,
        'config_error',
      );
    case 'not_allowed':
      return new NodeFailure(`${subject} ${outcome.message}`, false, 'config_error');
    default:
      if (OUT_OF_MEMORY.test(outcome.error))
        return new NodeFailure(
          `${subject} needs more memory to plan than a statement may take: ${outcome.message}`,
          false,
          'config_error',
        );
      // DuckDB's own message, its class kept (`Binder Error: ...`), as the executor's own bind said it before.
      return new NodeFailure(outcome.error, false);
  }
}

/**
 * Throws a NodeFailure (its message completing `subject`, or DuckDB's own) unless `sql` binds whole in the SQL-check child against
 * the run's finished node tables (the node's inputs among them, recorded first where an earlier execution of the run
 * made them).
 */
export async function checkPlanIsolated(
  ctx: Pick<NodeContext, 'tenantId' | 'workspace' | 'inputs' | 'signal'>,
  connection: DuckDBConnection,
  sql: string,
  subject: string,
): Promise<void> {
  for (const input of ctx.inputs)
    if (!ctx.workspace.hasTableInput(input)) ctx.workspace.setTableInput(await bindInputOf(connection, input));
  const key = planKey(ctx.tenantId, sql, ctx.workspace.recordedInputsDigest());
  if (bound.get(key)) return;
  const inputs = ctx.workspace.recordedInputs();
  // A node stopped meanwhile (cancel, its timeout) does not wait for the check, which runs out in the child.
  ctx.signal.throwIfAborted();
  const outcome = await untilAborted(
    oneAtATime(ctx.tenantId, () => isolatedBind(sql, inputs, PLAN_BUDGET_MS)),
    ctx.signal,
  );
  if (outcome?.kind !== 'bound') throw failureOf(outcome, subject);
  bound.set(key, true);
}

/** `work`'s answer, or `signal`'s reason as soon as it aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

let planning = 0;
const waiting: (() => void)[] = [];

/**
 * Runs `work` (the executor's own bind of checked SQL) once one of PLAN_SLOTS is free; a wait that `signal` aborts
 * ends with its reason and takes no slot.
 */
export async function withPlanSlot<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  if (planning >= PLAN_SLOTS) {
    signal?.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      const turn = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        waiting.splice(waiting.indexOf(turn), 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      waiting.push(turn);
    });
  } else planning += 1;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else planning -= 1;
  }
}
