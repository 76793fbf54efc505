import { AppError } from '@conduit/contracts';

/** Unknown, malformed and other tenants' runs all get the same answer: existence is never revealed. */
export function runNotFound(runId: string): AppError {
  return new AppError('not_found', `run ${runId.length <= 64 ? runId : `${runId.slice(0, 64)}...`} was not found`);
}
