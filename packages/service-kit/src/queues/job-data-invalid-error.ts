/**
 * A job whose data its schema refuses. Permanent: sending it again can never succeed, so a producer's caller must not
 * retry it as it would a Redis outage. The message names the fields at fault, never their values (they may be large
 * or hold a tenant's data).
 */
export class JobDataInvalidError extends Error {
  constructor(
    readonly queue: string,
    readonly jobName: string,
    /** The first few refusals, as `path: reason`. */
    readonly issues: readonly string[],
  ) {
    super(`job ${queue}/${jobName} refused before sending: ${issues.join('; ')}`);
    this.name = 'JobDataInvalidError';
  }
}
