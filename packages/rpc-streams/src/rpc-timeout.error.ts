/** The caller stopped waiting: no reply arrived within `timeoutMs` (no replica running, or all too busy). */
export class RpcTimeoutError extends Error {
  override readonly name = 'RpcTimeoutError';

  constructor(
    readonly pattern: string,
    readonly timeoutMs: number,
  ) {
    super(`No reply to "${pattern}" within ${timeoutMs} ms`);
  }
}
