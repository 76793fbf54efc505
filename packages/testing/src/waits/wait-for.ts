import { inspect } from 'node:util';

/** How waitFor polls. */
export interface WaitOptions {
  /** What is awaited, named in the timeout's message ("the run to succeed"). */
  what: string;
  /** How long before giving up. Default 10 000 ms. */
  timeoutMs?: number;
  /** The pause between two checks. Default 50 ms. */
  intervalMs?: number;
}

/** A value that counts as "the condition holds": anything but undefined, null and false. */
export type Held<T> = Exclude<T, undefined | null | false>;

/**
 * Polls `condition` until it answers a value other than undefined, null or false, and answers that value. A check
 * that throws counts as "not yet"; its last error is named in the timeout's message, with what was awaited.
 */
export async function waitFor<T>(condition: () => T | Promise<T>, options: WaitOptions): Promise<Held<T>> {
  const { what, timeoutMs = 10_000, intervalMs = 50 } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value !== undefined && value !== null && value !== false) return value as Held<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const cause =
        lastError === undefined
          ? ''
          : `; last error: ${lastError instanceof Error ? lastError.message : inspect(lastError)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
