// PostgreSQL -> PostgreSQL copy of 1M rows by a pipeline run (source table -> sink append, through the executor's
// DuckDB workspace), beside the least any copy could cost: a raw `COPY src TO STDOUT | COPY dst FROM STDIN` pipe
// between the same tables, in this process. Also the executor's peak RSS (VmHWM) after the run.
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

const stack = await startStack({ RATE_LIMIT_PER_MINUTE: '1000000' });
const db = new pg.Client({ connectionString: stack.databaseUrl });
let raw, run, rss;
try {
  await db.connect();
  for (const table of ['bench_src', 'bench_raw', 'bench_pipe']) await db.query(`create table ${table} ${TABLE_COLUMNS}`);
  await db.query(
    `insert into bench_src select i, (i % 100000) / 100.0, 'customer ' || i, timestamptz '2026-01-01' + i * interval '1 second', i % 2 = 0
     from generate_series(1, $1) as i`,
    [ROWS],
  );
  await db.query('vacuum analyze bench_src');
  const connectorId = await stackConnector(stack);
  const jobId = await jobFor(stack, {
    nodes: [
      { id: 'extract', type: 'source', config: { connector_id: connectorId, table: 'bench_src' } },
      { id: 'load', type: 'sink', config: { connector_id: connectorId, table: 'bench_pipe', mode: 'append' } },
    ],
    edges: [{ from: 'extract', to: 'load' }],
  });
  const executor = stack.processes.find((p) => p.name === 'executor');
  const rssBefore = peakRssMib(executor.child.pid);

  raw = await rawCopy(stack.databaseUrl);
  console.log(`raw COPY TO | COPY FROM (baseline)  ${raw.rows} rows in ${raw.ms} ms  (${Math.round(raw.rows / (raw.ms / 1000))} rows/s)`);

  const sent = performance.now();
  const done = await waitSucceeded(stack, jobId, (await trigger(stack, jobId)).id, { everyMs: 50, timeoutMs: 180_000 });
  const wallMs = round(performance.now() - sent, 1);
  const copied = Number((await db.query('select count(*) as n from bench_pipe')).rows[0].n);
  if (copied !== ROWS || done.stats.rows_written !== ROWS) throw new Error(`the pipeline copied ${copied} rows (reported ${done.stats.rows_written}), not ${ROWS}`);
  const mismatched = Number(
    (await db.query('select count(*) as n from (select * from bench_src except select * from bench_pipe) as d')).rows[0].n,
  );
  if (mismatched !== 0) throw new Error(`${mismatched} rows of the copy differ from the source`);
  run = { wall_ms: wallMs, run_ms: msBetween(done.started_at, done.finished_at), nodes: done.nodes.map((n) => ({ id: n.id, ms: msBetween(n.started_at, n.finished_at) })) };
  rss = { before_mib: rssBefore, peak_mib: peakRssMib(executor.child.pid) };
  console.log(`pipeline run (source -> sink)       ${ROWS} rows in ${run.run_ms} ms started -> finished, ${run.wall_ms} ms trigger -> seen; nodes ${run.nodes.map((n) => `${n.id} ${n.ms} ms`).join(', ')}`);
  console.log(`executor peak RSS (VmHWM)           ${rss.peak_mib} MiB (${rss.before_mib} MiB before the run; goal <= ${GOALS.executor_peak_rss_mib})`);
} catch (err) {
  console.error(stack.logs().slice(-4000));
  throw err;
} finally {
  await db.end().catch(() => undefined);
  await stack.stop();
}

const pct = round((raw.ms / run.run_ms) * 100, 1);
const met = { throughput: pct >= GOALS.pct_of_raw, rss: rss.peak_mib <= GOALS.executor_peak_rss_mib };
console.log(`ratio: the pipeline copies at ${pct}% of the raw COPY pipe's speed (goal >= ${GOALS.pct_of_raw}%: ${met.throughput ? 'met' : 'NOT met'}); peak RSS goal ${met.rss ? 'met' : 'NOT met'}`);

printResult('runs-copy', {
  rows: ROWS,
  pipeline: { ...run, rows_per_sec: Math.round(ROWS / (run.run_ms / 1000)) },
  baseline: { name: 'raw_copy_pipe', ...raw, rows_per_sec: Math.round(raw.rows / (raw.ms / 1000)) },
  pct_of_raw: pct,
  executor_rss: rss,
  goals: GOALS,
  goals_met: met,
  headline: {
    subject: `pipeline copy ${Math.round(ROWS / (run.run_ms / 1000))} rows/s, executor peak ${rss.peak_mib} MiB`,
    baseline: `raw COPY pipe ${Math.round(raw.rows / (raw.ms / 1000))} rows/s`,
    ratio: `${pct}% of baseline (goal >= ${GOALS.pct_of_raw}%)`,
  },
});
