// Validates the editor's draft with the API as it is typed (POST /v2/pipelines/{id}/validate with `{ dag }`, which
// stores nothing): once typing pauses, with one request in flight at a time, and an answer for a draft that is no
// longer the newest dropped, so a slow answer never overwrites a newer one.
import { ConduitApiError, type Dag, type PipelineValidation } from '@conduit/sdk';
import { useEffect, useRef, useState } from 'react';
import { useSession } from '../session/session-context.js';
import { describeError } from '../ui/states.js';

/** How long typing may pause before the draft is sent: a request per pause, not per key. */
export const VALIDATE_AFTER_MS = 400;

/** What the API said of one draft. */
export type DraftAnswer =
  | { kind: 'validated'; dag: Dag; validation: PipelineValidation }
  /** A draft an update would refuse (422): each field at fault, its path from `dag`. */
  | { kind: 'refused'; dag: Dag; detail: string; problems: { path: string; message: string }[] }
  | { kind: 'failed'; dag: Dag; message: string };

export interface DraftValidation {
  /** The answer for the newest draft sent; undefined before the first, or when the text is the saved DAG. */
  answer: DraftAnswer | undefined;
  /** A newer draft is waiting to be sent, or being validated. */
  pending: boolean;
}

/**
 * `draft`: the DAG to validate; `'saved'` when the text is the saved version (nothing to ask, the answer is cleared);
 * `'unreadable'` while the text is no DAG (nothing sent, the last answer stays until the text reads again).
 */
export function useDraftValidation(pipelineId: string, draft: Dag | 'saved' | 'unreadable'): DraftValidation {
  const { client } = useSession();
  const [answer, setAnswer] = useState<DraftAnswer>();
  const [pending, setPending] = useState(false);
  /** The key of the newest draft: only its answer is kept. */
  const newest = useRef<string | undefined>(undefined);
  /** The key of the draft being validated, if any. */
  const inFlight = useRef<string | undefined>(undefined);
  /** A draft whose pause ended while another was in flight: sent when that one answers, if still the newest. */
  const queued = useRef<Dag | undefined>(undefined);
  const key = typeof draft === 'string' ? draft : JSON.stringify(draft);

  useEffect(() => {
    if (draft === 'unreadable') {
      // A draft not sent yet never will be; one in flight still answers (the text read as it when it was sent).
      newest.current = inFlight.current;
      setPending(inFlight.current !== undefined);
      return;
    }
    if (draft === 'saved') {
      newest.current = undefined;
      setAnswer(undefined);
      setPending(false);
      return;
    }
    newest.current = key;
    setPending(true);
    /** Never rejects: a failed request is an answer too. */
    const send = async (dag: Dag): Promise<void> => {
      const sent = JSON.stringify(dag);
      inFlight.current = sent;
      let answered: DraftAnswer;
      try {
        answered = { kind: 'validated', dag, validation: await client.pipelines.validate(pipelineId, { dag }) };
      } catch (error) {
        answered = answerOfError(dag, error);
      }
      inFlight.current = undefined;
      if (sent === newest.current) {
        setAnswer(answered);
        setPending(false);
      }
      const next = queued.current;
      queued.current = undefined;
      if (next !== undefined && JSON.stringify(next) === newest.current) await send(next);
    };
    const timer = setTimeout(() => {
      if (inFlight.current !== undefined) queued.current = draft;
      // send() settles every outcome itself, so there is nothing to await here.
      else void send(draft);
    }, VALIDATE_AFTER_MS);
    return () => clearTimeout(timer);
    // `key` stands for `draft` (a new object on every render of the same text); the client and id are fixed.
  }, [key, client, pipelineId]);

  // Answers that arrive after the editor is gone are dropped.
  useEffect(
    () => () => {
      newest.current = undefined;
    },
    [],
  );

  return { answer, pending };
}

function answerOfError(dag: Dag, error: unknown): DraftAnswer {
  if (error instanceof ConduitApiError && error.status === 422) {
    const problems = error.errors.map((e) => ({ path: e.path, message: e.message }));
    return { kind: 'refused', dag, detail: error.detail, problems };
  }
  return { kind: 'failed', dag, message: describeError(error).message };
}
