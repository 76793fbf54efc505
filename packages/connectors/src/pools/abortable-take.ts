/**
 * Waits for a pooled connection, or stops waiting at once when `signal` aborts (throwing its reason, as an unpooled
 * connect would); a connection that arrives after the abort goes straight back to its pool.
 */
export async function takeAbortably<C extends { release(): void }>(
  pending: Promise<C>,
  signal: AbortSignal | undefined,
): Promise<C> {
  if (!signal) return pending;
  // A listener removed at the end, not one bound to a controller aborted then: that abort builds a DOMException at
  // every take of every node (issue 18).
  let stopWaiting: (value: undefined) => void = () => undefined;
  const abortion = new Promise<undefined>((resolve) => (stopWaiting = resolve));
  const onAbort = () => stopWaiting(undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const connection = await Promise.race([pending, abortion]);
    if (connection && !signal.aborted) return connection;
    void pending.then(
      (late) => late.release(),
      () => undefined,
    );
    throw signal.reason;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
