/**
 * Waits for a pooled connection, or stops waiting at once when `signal` aborts (throwing its reason, as an unpooled
 * connect would); a connection that arrives after the abort goes straight back to its pool.
 */
export async function takeAbortably<C extends { release(): void }>(
  pending: Promise<C>,
  signal: AbortSignal | undefined,
): Promise<C> {
  if (!signal) return pending;
  const waited = new AbortController();
  const abortion = new Promise<undefined>((resolve) =>
    signal.addEventListener('abort', () => resolve(undefined), { once: true, signal: waited.signal }),
  );
  try {
    const connection = await Promise.race([pending, abortion]);
    if (connection && !signal.aborted) return connection;
    void pending.then(
      (late) => late.release(),
      () => undefined,
    );
    throw signal.reason;
  } finally {
    waited.abort();
  }
}
