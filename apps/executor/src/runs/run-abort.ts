/**
 * Why a run was stopped; only a cancel ends it as `canceled`. A lost lock or a shutdown hands it back to the queue;
 * `fenced` (the scheduler refused the lease: another execution holds the run, or it ended) ends it here silently.
 */
export type RunStopKind = 'canceled' | 'lock_lost' | 'shutdown' | 'fenced';

export class RunStop extends Error {
  constructor(readonly kind: RunStopKind) {
    super(`run stopped: ${kind}`);
    this.name = 'RunStop';
  }
}

export function stopKindOf(signal: AbortSignal): RunStopKind | undefined {
  if (!signal.aborted) return undefined;
  return signal.reason instanceof RunStop ? signal.reason.kind : 'canceled';
}
