import { AppError } from '@conduit/contracts';

/** Unknown, malformed and other tenants' ids all get the same answer: existence is never revealed. */
export function notFound(noun: string, id: string): AppError {
  return new AppError('not_found', `${noun} ${id.length <= 64 ? id : `${id.slice(0, 64)}...`} was not found`);
}
