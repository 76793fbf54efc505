// An sql node's statement may answer rows (a SELECT, a procedure's result): their number and size are the tenant's
// database's to choose, so `execute` keeps none of them. Each driver runs here in a Node process whose heap is 64 MiB
// and reads an answer of about 300 MB: kept, it ends that process (V8's out-of-memory abort); streamed past, it
// answers the count.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { useMysqlSandbox } from './support/mysql-sandbox.js';
import { usePgSandbox } from './support/pg-sandbox.js';

const BUILT = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const ROWS = 300_000;

/** `execute` of `sql` with `config` by the built driver `type`, in a process of its own with a 64 MiB heap. */
async function executeInSmallHeap(type: string, config: Record<string, unknown>, sql: string): Promise<unknown> {
  if (!existsSync(BUILT)) throw new Error('dist/index.js is missing: run `npm run build -w @conduit/connectors`');
  const script = `
    const { getDriver } = await import(${JSON.stringify(BUILT)});
    const answer = await getDriver(${JSON.stringify(type)}).execute(${JSON.stringify(config)}, ${JSON.stringify(sql)});
    process.stdout.write(JSON.stringify(answer));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--max-old-space-size=64', '--input-type=module', '-e', script],
    // The test servers listen on this machine, which the default network policy refuses.
    { env: { PATH: process.env['PATH'] ?? '', CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' } },
  );
  return JSON.parse(stdout) as unknown;
}

describe('postgres execute', () => {
  const sandbox = usePgSandbox();

  it('keeps none of the rows its statement answers, and counts them', async () => {
    const sql = `select repeat('x', 1000) as wide from generate_series(1, ${ROWS})`;
    await expect(executeInSmallHeap('postgres', sandbox.config, sql)).resolves.toEqual({ rows_affected: ROWS });
  }, 60_000);
});

describe('mysql execute', () => {
  const sandbox = useMysqlSandbox();

  it('keeps none of the rows its statement answers (a SELECT affects none)', async () => {
    const sql = `select repeat('x', 1000) as wide from seq_1_to_${ROWS}`;
    await expect(executeInSmallHeap('mysql', sandbox.config, sql)).resolves.toEqual({ rows_affected: 0 });
  }, 60_000);
});
