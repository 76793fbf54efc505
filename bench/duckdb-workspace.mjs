// What a run's DuckDB work costs the executor (issue 18): CPU per statement of the steps a 1-node postgres run takes
// in its workspace (workspace-database.ts, run-workspace.ts, the postgres typed load), on one locked instance of an
// executor slot, in this process. These run on libuv's pool, not the event loop: they are most of the executor's
// "other threads" in runs-cpu.mjs. CPU is process.cpuUsage() over N repetitions (every thread of the process).
// Baseline: `select 1` on the same connection, the least a DuckDB call costs from Node.
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { RunWorkspace, WorkspaceDatabase, nodeColumnsOf, runMemory } from '@conduit/executor';
import { printResult, round } from './lib/report.mjs';

const N = Number(process.env.BENCH_DUCKDB_REPEATS ?? 400);
const WARMUP = 20;

/** ms of CPU per call of `step`, over N calls after a warm-up. */
async function cpuPerCall(step) {
  for (let i = 0; i < WARMUP; i++) await step(i);
  const start = process.cpuUsage();
  for (let i = 0; i < N; i++) await step(i);
  const used = process.cpuUsage(start);
  return round((used.user + used.system) / 1000 / N, 3);
}

const dataDir = join(tmpdir(), `conduit-bench-duckdb-${randomUUID().slice(0, 8)}`);
const memory = runMemory(88 * 1024 * 1024);
const database = await WorkspaceDatabase.open('bench', dataDir, memory);
const figures = {};
try {
  const connection = await database.connect(database.currentRun);
  const file = join(database.scratchRoot, 'part.csv');
  await writeFile(file, '1\n');
  const readCsv =
    `read_csv('${file}', columns = {'c0': 'INTEGER'}, header = false, auto_detect = false, delim = ',', quote = '"', ` +
    `escape = '"', nullstr = '', allow_quoted_nulls = false, max_line_size = 65536, buffer_size = 131072)`;
  try {
    figures.select_1 = await cpuPerCall(() => connection.run('select 1'));
    figures.create_table_in_transaction = await cpuPerCall(async () => {
      await connection.run('begin transaction');
      await connection.run('create or replace table t (n integer)');
      await connection.run('commit');
    });
    figures.insert_from_read_csv = await cpuPerCall(() => connection.run(`insert into t select c0 from ${readCsv}`));
    // The node's columns as the engine reads them (from a prepared `select *`), and DESCRIBE, which it read them
    // with until 2026-11-29 (not in the sum).
    figures.node_columns = await cpuPerCall(() => nodeColumnsOf(connection, 't'));
    figures.describe = await cpuPerCall(async () => (await connection.runAndReadAll('describe t')).getRows());
  } finally {
    connection.closeSync();
    // A file left in the scratch folder would fail the recycle's check (and close the instance).
    await rm(file, { force: true });
  }
  figures.connect_and_use = await cpuPerCall(async () => (await database.connect(database.currentRun)).closeSync());
  figures.run_folders = await cpuPerCall(async () =>
    (await RunWorkspace.within(database, 'run_bench', memory)).close(),
  );
  // After a run of the platform's statements alone (a source into a sink), as a 1-node postgres run is.
  figures.recycle = await cpuPerCall(async () => {
    if (!(await database.recycle('run'))) throw new Error('the recycle found the instance unlike a new one');
  });
  // After a run that may have run a tenant's SQL (a transform, a rules decision): the settings compared too.
  figures.recycle_whole = await cpuPerCall(async () => {
    if (!(await database.recycle('whole'))) throw new Error('the recycle found the instance unlike a new one');
  });
} finally {
  await database.close();
  await rm(dataDir, { recursive: true, force: true });
}

const NOT_STEPS = new Set(['select_1', 'recycle_whole', 'describe']);
const steps = Object.entries(figures).filter(([name]) => !NOT_STEPS.has(name));
const sum = round(
  steps.reduce((s, [, ms]) => s + ms, 0),
  2,
);
console.log(
  `ms of CPU per call, ${N} calls each, one locked DuckDB instance of an executor slot (threads ${memory.duckdb.threads}):`,
);
for (const [name, ms] of Object.entries(figures))
  console.log(`  ${name.padEnd(28)} ${String(ms).padStart(6)}  (${round(ms / figures.select_1, 1)}x select 1)`);
console.log(
  `  the steps of a 1-node postgres run: ${sum} ms, of which recycling for the next run ${figures.recycle} ms ` +
    `(${figures.recycle_whole} ms after a run with a tenant's SQL)`,
);

printResult('duckdb-workspace', {
  repeats: N,
  threads: Number(memory.duckdb.threads),
  cpu_ms_per_call: figures,
  run_steps_sum_ms: sum,
  baseline: { name: 'select_1', cpu_ms: figures.select_1 },
  headline: {
    subject: `a 1-node run's DuckDB steps ${sum} ms CPU (recycle ${figures.recycle} ms)`,
    baseline: `select 1 ${figures.select_1} ms`,
    ratio: `${round(sum / figures.select_1, 1)}x select 1`,
  },
});
