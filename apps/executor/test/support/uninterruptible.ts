/**
 * SQL that DuckDB computes as one value without looking for an interrupt: nested lambdas over ranges of `n`, n^3 calls
 * (700: 343 million, seconds of work on this machine; 100,000: years). Reads nothing, so it may fold at bind time:
 * give it a column (`range(n + col)`) where a plan check must not run it.
 */
export function uninterruptibleSql(n: number | string): string {
  return (
    `select list_sum(list_transform(range(${n}), x -> list_sum(list_transform(range(${n}), ` +
    `y -> list_sum(list_transform(range(${n}), z -> x + y + z)))))) as s`
  );
}

/**
 * Resolves once this process has spent `cpuMs` more of CPU than when called: with one statement of
 * {@link uninterruptibleSql} running and the event loop idle, that is DuckDB deep in the value's computation, past
 * the points where an interrupt would still stop it.
 */
export async function computingFor(cpuMs: number): Promise<void> {
  const spent = (): number => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const until = spent() + cpuMs;
  while (spent() < until) await new Promise((resolve) => setTimeout(resolve, 10));
}
