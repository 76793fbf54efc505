import type { RunError } from '@conduit/contracts';

export const EXECUTOR_STOPPED_RESPONDING = 'the executor running it stopped responding';

/** The error of a run whose queue job failed: stalls mean the executor died; anything else is quoted. */
export function lostExecutorError(failedReason: string | undefined): RunError {
  const reason = (failedReason ?? '').slice(0, 2000);
  if (reason === '' || /stalled/i.test(reason)) {
    return {
      code: 'executor_lost',
      message: reason ? `${EXECUTOR_STOPPED_RESPONDING} (${reason})` : EXECUTOR_STOPPED_RESPONDING,
    };
  }
  return { code: 'executor_failed', message: `the executor failed the run: ${reason}` };
}
