import { AppError, type DomainError, serviceOf, statusOf } from '@conduit/contracts';

/**
 * The service answered, and its answer is a problem: the domain error it replied with (its code, detail, field errors
 * and, on a 503, the dependency), or a reply that does not parse with the pattern's schemas (`malformed`, code
 * `internal`). An AppError, so a problem the caller does not handle itself goes on as that service answered it (the
 * gateway's problem document, another service's reply). A timeout is an RpcTimeoutError instead, and Redis being
 * down a RedisUnavailableError: the request may then have run, or not.
 */
export class RpcRemoteError extends AppError {
  override readonly name = 'RpcRemoteError';

  constructor(
    readonly pattern: string,
    problem: DomainError,
    /** The reply did not parse: the service is of another version, or broken. */
    readonly malformed = false,
  ) {
    super(problem.code, problem.detail, problem.errors, problem.dependency);
  }

  /** The HTTP status the problem's code stands for. */
  get status(): number {
    return statusOf(this.code);
  }

  /** The problem as the service answered it. */
  get problem(): DomainError {
    return this.toDomainError();
  }

  static malformedReply(pattern: string): RpcRemoteError {
    return new RpcRemoteError(
      pattern,
      { code: 'internal', detail: `the ${serviceOf(pattern)} service answered ${pattern} with a malformed reply` },
      true,
    );
  }
}
