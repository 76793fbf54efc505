/** The check that an abort reaches the server: a cancelled call must not leave its statement running there. */
import { waitFor } from '@conduit/testing';

/**
 * Starts `run` with a signal, aborts once `serverRuns` sees its statement on the server, and asserts that the call
 * rejects as an AbortError and that the server stops the statement.
 */
export async function expectAbortStopsStatement(
  run: (signal: AbortSignal) => Promise<unknown>,
  serverRuns: () => Promise<boolean>,
): Promise<void> {
  const controller = new AbortController();
  const done = expect(run(controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
  await waitFor(serverRuns, { what: 'the statement to start', timeoutMs: 5000 });
  controller.abort();
  await done;
  await waitFor(async () => !(await serverRuns()), { what: 'the server to stop the statement', timeoutMs: 5000 });
}
