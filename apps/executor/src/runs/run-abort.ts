/** Why a run was stopped; only a cancel ends it as `canceled`, the others hand it back to the queue. */
export type RunStopKind = 'canceled' | 'lock_lost' | 'shutdown';

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
