// PostgreSQL -> PostgreSQL copy of 1M rows by two pipeline runs, beside the least any copy could cost: a raw
// `COPY src TO STDOUT | COPY dst FROM STDIN` pipe between the same tables, in this process. The direct run (source ->
// sink) takes the CSV hand-off; the typed run (source -> `select *` transform -> sink) goes through the executor's
// DuckDB workspace with the source's own types (readIntoTable, writeFromTable). Also the executor's peak RSS (VmHWM)
// after each run (a high-water mark: the second figure covers both runs).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { startStack } from '@conduit/local-stack';
import { printResult, round } from './lib/report.mjs';
import { api, jobFor, msBetween, stackConnector, trigger, waitSucceeded } from './lib/runs-api.mjs';

const ROWS = Number(process.env.BENCH_COPY_ROWS ?? 1_000_000);
const GOALS = { pct_of_raw: 50, executor_peak_rss_mib: 256 };
const TABLE_COLUMNS = '(id bigint primary key, amount numeric(12,2), name text, created_at timestamptz, flag boolean)';

/** The raw pipe: one connection reads COPY TO STDOUT, the other writes COPY FROM STDIN. */
async function rawCopy(databaseUrl) {
  const reader = new pg.Client({ connectionString: databaseUrl });
  const writer = new pg.Client({ connectionString: databaseUrl });
  await Promise.all([reader.connect(), writer.connect()]);
  try {
    const started = performance.now();
    const out = reader.query(copyStreams.to('copy bench_src to stdout with (format csv)'));
    const into = writer.query(copyStreams.from('copy bench_raw from stdin with (format csv)'));
    await pipeline(out, into);
    return { ms: round(performance.now() - started, 1), rows: into.rowCount };
  } finally {
    await Promise.all([reader.end(), writer.end()]);
  }
}

/** VmHWM (peak resident set) of a process, in MiB. */
function peakRssMib(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
  return round(Number(line.match(/(\d+)/)[1]) / 1024, 1);
}

// The bench's database is on this machine, which the default network policy refuses to connectors.
const stack = await startStack({ RATE_LIMIT_PER_MINUTE: '1000000', CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' });
// Connectors may never reach the platform's own database: the tables live in a database of the bench's own.
const benchDatabase = `conduit_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const urlOf = (database) => Object.assign(new URL(stack.databaseUrl), { pathname: `/${database}` }).toString();
const admin = new pg.Client({ connectionString: urlOf('postgres') });
const db = new pg.Client({ connectionString: urlOf(benchDatabase) });
let raw, run, rss, typed, typedRss;

/** Triggers a run of `jobId`, waits for it, and checks that `target` then holds exactly the source's rows. */
async function timedRun(jobId, target) {
  const sent = performance.now();
  const done = await waitSucceeded(stack, jobId, (await trigger(stack, jobId)).id, { everyMs: 50, timeoutMs: 600_000 });
  const wallMs = round(performance.now() - sent, 1);
  const copied = Number((await db.query(`select count(*) as n from ${target}`)).rows[0].n);
  if (copied !== ROWS || done.stats.rows_written !== ROWS) throw new Error(`${target}: the pipeline copied ${copied} rows (reported ${done.stats.rows_written}), not ${ROWS}`);
  const mismatched = Number(
    (await db.query(`select count(*) as n from (select * from bench_src except select * from ${target}) as d`)).rows[0].n,
  );
  if (mismatched !== 0) throw new Error(`${target}: ${mismatched} rows of the copy differ from the source`);
  return { wall_ms: wallMs, run_ms: msBetween(done.started_at, done.finished_at), nodes: done.nodes.map((n) => ({ id: n.id, ms: msBetween(n.started_at, n.finished_at) })) };
}
try {
  await admin.connect();
  await admin.query(`create database ${benchDatabase}`);
  await db.connect();
  for (const table of ['bench_src', 'bench_raw', 'bench_pipe', 'bench_typed']) await db.query(`create table ${table} ${TABLE_COLUMNS}`);
  await db.query(
    `insert into bench_src select i, (i % 100000) / 100.0, 'customer ' || i, timestamptz '2026-01-01' + i * interval '1 second', i % 2 = 0
     from generate_series(1, $1) as i`,
    [ROWS],
  );
  await db.query('vacuum analyze bench_src');
  const connectorId = await stackConnector(stack, benchDatabase);
  const jobId = await jobFor(stack, {
    nodes: [
      { id: 'extract', type: 'source', config: { connector_id: connectorId, table: 'bench_src' } },
      { id: 'load', type: 'sink', config: { connector_id: connectorId, table: 'bench_pipe', mode: 'append' } },
    ],
    edges: [{ from: 'extract', to: 'load' }],
  });
  const typedJobId = await jobFor(stack, {
    nodes: [
      { id: 'extract', type: 'source', config: { connector_id: connectorId, table: 'bench_src' } },
      { id: 'all', type: 'transform', config: { sql: 'select * from extract' } },
      { id: 'load', type: 'sink', config: { connector_id: connectorId, table: 'bench_typed', mode: 'append' } },
    ],
    edges: [
      { from: 'extract', to: 'all' },
      { from: 'all', to: 'load' },
    ],
  });
  const executor = stack.processes.find((p) => p.name === 'executor');
  const rssBefore = peakRssMib(executor.child.pid);

  raw = await rawCopy(urlOf(benchDatabase));
  console.log(`raw COPY TO | COPY FROM (baseline)  ${raw.rows} rows in ${raw.ms} ms  (${Math.round(raw.rows / (raw.ms / 1000))} rows/s)`);

  run = await timedRun(jobId, 'bench_pipe');
  rss = { before_mib: rssBefore, peak_mib: peakRssMib(executor.child.pid) };
  console.log(`pipeline run (source -> sink)       ${ROWS} rows in ${run.run_ms} ms started -> finished, ${run.wall_ms} ms trigger -> seen; nodes ${run.nodes.map((n) => `${n.id} ${n.ms} ms`).join(', ')}`);
  console.log(`executor peak RSS (VmHWM)           ${rss.peak_mib} MiB (${rss.before_mib} MiB before the run; goal <= ${GOALS.executor_peak_rss_mib})`);
  typed = await timedRun(typedJobId, 'bench_typed');
  typedRss = { peak_mib: peakRssMib(executor.child.pid) };
  console.log(`typed run (source -> select * -> sink) ${ROWS} rows in ${typed.run_ms} ms started -> finished; nodes ${typed.nodes.map((n) => `${n.id} ${n.ms} ms`).join(', ')}`);
  console.log(`executor peak RSS after both runs   ${typedRss.peak_mib} MiB (goal <= ${GOALS.executor_peak_rss_mib})`);
} catch (err) {
  console.error(stack.logs().slice(-4000));
  throw err;
} finally {
  await db.end().catch(() => undefined);
  await stack.stop();
  await admin.query(`drop database if exists ${benchDatabase} with (force)`).catch(() => undefined);
  await admin.end().catch(() => undefined);
}

const pct = round((raw.ms / run.run_ms) * 100, 1);
const typedPct = round((raw.ms / typed.run_ms) * 100, 1);
const met = {
  throughput: pct >= GOALS.pct_of_raw,
  rss: rss.peak_mib <= GOALS.executor_peak_rss_mib,
  typed_throughput: typedPct >= GOALS.pct_of_raw,
  typed_rss: typedRss.peak_mib <= GOALS.executor_peak_rss_mib,
};
const verdict = (ok) => (ok ? 'met' : 'NOT met');
console.log(`ratio: the pipeline copies at ${pct}% of the raw COPY pipe's speed (goal >= ${GOALS.pct_of_raw}%: ${verdict(met.throughput)}); peak RSS goal ${verdict(met.rss)}`);
console.log(`ratio: the typed run copies at ${typedPct}% of the raw COPY pipe's speed (goal >= ${GOALS.pct_of_raw}%: ${verdict(met.typed_throughput)}); peak RSS goal ${verdict(met.typed_rss)}`);
const rowsPerSec = (ms) => Math.round(ROWS / (ms / 1000));

printResult('runs-copy', {
  rows: ROWS,
  pipeline: { ...run, rows_per_sec: Math.round(ROWS / (run.run_ms / 1000)) },
  baseline: { name: 'raw_copy_pipe', ...raw, rows_per_sec: Math.round(raw.rows / (raw.ms / 1000)) },
  pct_of_raw: pct,
  executor_rss: rss,
  typed: { ...typed, rows_per_sec: rowsPerSec(typed.run_ms), pct_of_raw: typedPct, executor_peak_rss_mib: typedRss.peak_mib },
  goals: GOALS,
  goals_met: met,
  headline: {
    subject: `pipeline copy ${rowsPerSec(run.run_ms)} rows/s, typed (select *) ${rowsPerSec(typed.run_ms)} rows/s, executor peak ${typedRss.peak_mib} MiB`,
    baseline: `raw COPY pipe ${Math.round(raw.rows / (raw.ms / 1000))} rows/s`,
    ratio: `${pct}% direct, ${typedPct}% typed of baseline (goal >= ${GOALS.pct_of_raw}%)`,
  },
});
