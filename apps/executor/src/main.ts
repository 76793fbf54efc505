/**
 * The executor's entry. DuckDB's allocator reads its options once, as the binding loads, and every module of the
 * executor loads it: so they are set first (ops/data-limit.ts), and the executor is imported after.
 */
import { returnFreedAddressSpace } from './ops/data-limit.js';

returnFreedAddressSpace(process.env);
const { main } = await import('./executor-main.js');
main().catch((err: unknown) => {
  process.stderr.write(`executor: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
