// PostgreSQL -> PostgreSQL copies by pipeline runs at 1M and 10M rows, beside the least any copy could cost: a raw
// `COPY src TO STDOUT | COPY dst FROM STDIN` pipe between the same tables, in this process. The direct run (source ->
// sink) takes the CSV hand-off; the typed run (source -> `select *` transform -> sink) goes through the executor's
// DuckDB workspace with the source's own types (readIntoTable, writeFromTable). Each size gets a stack of its own
// (EXECUTOR_CONCURRENCY=1), so the executor's peak RSS (VmHWM, a high-water mark) is that size's; the goal is
// <= 256 MiB and <= its idle RSS + EXECUTOR_CONCURRENCY x RUN_MEMORY_LIMIT (issues 15 and 16).
//
//   node runs-copy.mjs                 1M and 10M rows (BENCH_COPY_ROWS=1000000,10000000 does the same)
//   node runs-copy.mjs --rows 200000   one size
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { startBenchStack } from './lib/bench-stack.mjs';
import { DEFAULT_RUN_MEMORY_LIMIT, parseSize } from '@conduit/executor';
import { createBenchDatabase } from './lib/bench-database.mjs';
import { printResult, round } from './lib/report.mjs';
import { jobFor, msBetween, stackConnector, trigger, waitSucceeded } from './lib/runs-api.mjs';

const { values: args } = parseArgs({ options: { rows: { type: 'string' } } });
const SIZES = (args.rows ?? process.env.BENCH_COPY_ROWS ?? '1000000,10000000').split(',').map(Number);
if (SIZES.some((n) => !Number.isInteger(n) || n < 1))
  throw new Error(`--rows wants row counts such as 1000000,10000000`);
const CONCURRENCY = 1;
const RUN_MEMORY_LIMIT = process.env.RUN_MEMORY_LIMIT ?? DEFAULT_RUN_MEMORY_LIMIT;
const LIMIT_MIB = parseSize(RUN_MEMORY_LIMIT) / 1024 / 1024;
const GOALS = { pct_of_raw: 50, executor_peak_rss_mib: 256 };
const TABLE_COLUMNS = '(id bigint primary key, amount numeric(12,2), name text, created_at timestamptz, flag boolean)';
const MiB = (kib) => round(kib / 1024, 1);

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

/** VmRSS (now) and VmHWM (peak) of a process, in KiB. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+)`, 'm'))[1]);
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/**
 * An order-free checksum of a table's rows (count and a sum of each row's md5): equal for two tables holding the same
 * rows, whatever their order. Cheaper than `except` both ways at 10M rows, and as strict for a copy.
 */
const CHECKSUM = (table) =>
  `select count(*) as n, sum(('x' || substr(md5(t::text), 1, 15))::bit(60)::bigint)::text as sum from ${table} t`;

/** One size: its own stack and database; answers the figures. */
async function benchSize(rows) {
  // The bench's database is on this machine, which the default network policy refuses to connectors.
  const stack = await startBenchStack({
    RATE_LIMIT_PER_MINUTE: '1000000',
    CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true',
    EXECUTOR_CONCURRENCY: String(CONCURRENCY),
    RUN_MEMORY_LIMIT,
  });
  let database;
  let db;
  const executor = stack.processes.find((p) => p.name === 'executor');
  // Idle: started, connected, no run yet.
  const idle = memoryOf(executor.child.pid);

  /** Triggers a run of `jobId`, waits for it, and checks that `target` then holds exactly the source's rows. */
  async function timedRun(jobId, target, want) {
    const done = await waitSucceeded(stack, jobId, (await trigger(stack, jobId)).id, {
      everyMs: 50,
      timeoutMs: 900_000,
    });
    const got = (await db.query(CHECKSUM(target))).rows[0];
    if (Number(got.n) !== rows || done.stats.rows_written !== rows)
      throw new Error(
        `${target}: the pipeline copied ${got.n} rows (reported ${done.stats.rows_written}), not ${rows}`,
      );
    if (got.sum !== want.sum)
      throw new Error(`${target}: the copy's rows differ from the source's (checksum ${got.sum}, not ${want.sum})`);
    const run_ms = msBetween(done.started_at, done.finished_at);
    return {
      run_ms,
      rows_per_sec: Math.round(rows / (run_ms / 1000)),
      nodes: done.nodes.map((n) => ({ id: n.id, ms: msBetween(n.started_at, n.finished_at) })),
    };
  }

  try {
    // Connectors may never reach the platform's own database: the tables live in a database of the bench's own.
    database = await createBenchDatabase();
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
    for (const table of ['bench_src', 'bench_raw', 'bench_pipe', 'bench_typed'])
      await db.query(`create table ${table} ${TABLE_COLUMNS}`);
    await db.query(
      `insert into bench_src select i, (i % 100000) / 100.0, 'customer ' || i, timestamptz '2026-01-01' + i * interval '1 second', i % 2 = 0
       from generate_series(1, $1) as i`,
      [rows],
    );
    await db.query('vacuum analyze bench_src');
    const want = (await db.query(CHECKSUM('bench_src'))).rows[0];
    const connectorId = await stackConnector(stack, database.name);
    const source = { id: 'extract', type: 'source', config: { connector_id: connectorId, table: 'bench_src' } };
    const sink = (table) => ({
      id: 'load',
      type: 'sink',
      config: { connector_id: connectorId, table, mode: 'append' },
    });
    const directJob = await jobFor(stack, {
      nodes: [source, sink('bench_pipe')],
      edges: [{ from: 'extract', to: 'load' }],
    });
    const typedJob = await jobFor(stack, {
      nodes: [source, { id: 'all', type: 'transform', config: { sql: 'select * from extract' } }, sink('bench_typed')],
      edges: [
        { from: 'extract', to: 'all' },
        { from: 'all', to: 'load' },
      ],
    });

    const raw = await rawCopy(database.url);
    raw.rows_per_sec = Math.round(raw.rows / (raw.ms / 1000));
    const direct = await timedRun(directJob, 'bench_pipe', want);
    direct.executor_peak_rss_mib = MiB(memoryOf(executor.child.pid).hwm);
    const typed = await timedRun(typedJob, 'bench_typed', want);
    typed.executor_peak_rss_mib = MiB(memoryOf(executor.child.pid).hwm);
    return { rows, raw, direct, typed, executor_idle_rss_mib: MiB(idle.rss) };
  } catch (err) {
    console.error(stack.logs().slice(-4000));
    throw err;
  } finally {
    await db?.end().catch(() => undefined);
    await stack.stop();
    await database?.drop();
  }
}

const verdict = (ok) => (ok ? 'met' : 'NOT met');
const results = [];
for (const rows of SIZES) {
  const r = await benchSize(rows);
  const bound = round(r.executor_idle_rss_mib + CONCURRENCY * LIMIT_MIB, 1);
  const pct = (run) => round((r.raw.ms / run.run_ms) * 100, 1);
  r.direct.pct_of_raw = pct(r.direct);
  r.typed.pct_of_raw = pct(r.typed);
  const peak = r.typed.executor_peak_rss_mib;
  r.memory_bound_mib = bound;
  r.goals_met = {
    throughput: r.direct.pct_of_raw >= GOALS.pct_of_raw,
    typed_throughput: r.typed.pct_of_raw >= GOALS.pct_of_raw,
    rss: peak <= GOALS.executor_peak_rss_mib,
    rss_within_bound: peak <= bound,
  };
  const nodes = (run) => run.nodes.map((n) => `${n.id} ${n.ms} ms`).join(', ');
  console.log(`--- ${rows} rows (EXECUTOR_CONCURRENCY=${CONCURRENCY}, RUN_MEMORY_LIMIT=${RUN_MEMORY_LIMIT})`);
  console.log(`raw COPY TO | COPY FROM (baseline)    ${r.raw.ms} ms, ${r.raw.rows_per_sec} rows/s`);
  console.log(
    `direct run (source -> sink)           ${r.direct.run_ms} ms, ${r.direct.rows_per_sec} rows/s, ${r.direct.pct_of_raw}% of raw (goal >= ${GOALS.pct_of_raw}%: ${verdict(r.goals_met.throughput)}); ${nodes(r.direct)}`,
  );
  console.log(
    `typed run (source -> select * -> sink) ${r.typed.run_ms} ms, ${r.typed.rows_per_sec} rows/s, ${r.typed.pct_of_raw}% of raw (goal >= ${GOALS.pct_of_raw}%: ${verdict(r.goals_met.typed_throughput)}); ${nodes(r.typed)}`,
  );
  console.log(
    `executor RSS: idle ${r.executor_idle_rss_mib} MiB; peak (VmHWM) ${r.direct.executor_peak_rss_mib} MiB after the direct run, ${peak} MiB after the typed run`,
  );
  console.log(
    `  goal <= ${GOALS.executor_peak_rss_mib} MiB: ${verdict(r.goals_met.rss)}; <= idle + ${CONCURRENCY} x ${LIMIT_MIB} MiB = ${bound} MiB: ${verdict(r.goals_met.rss_within_bound)}`,
  );
  results.push(r);
}

const headlineOf = (r) =>
  `${r.rows / 1e6}M: typed ${r.typed.rows_per_sec} rows/s (${r.typed.pct_of_raw}%), direct ${r.direct.rows_per_sec} rows/s (${r.direct.pct_of_raw}%), executor peak ${r.typed.executor_peak_rss_mib} MiB`;
printResult('runs-copy', {
  sizes: results,
  executor_concurrency: CONCURRENCY,
  run_memory_limit_mib: LIMIT_MIB,
  goals: GOALS,
  goals_met: Object.fromEntries(
    ['throughput', 'typed_throughput', 'rss', 'rss_within_bound'].map((k) => [k, results.every((r) => r.goals_met[k])]),
  ),
  headline: {
    subject: results.map(headlineOf).join('; '),
    baseline: results.map((r) => `${r.rows / 1e6}M: raw COPY pipe ${r.raw.rows_per_sec} rows/s`).join('; '),
    ratio: `typed ${results.map((r) => `${r.typed.pct_of_raw}%`).join(' / ')} of raw (goal >= ${GOALS.pct_of_raw}%); peak <= ${GOALS.executor_peak_rss_mib} MiB: ${verdict(results.every((r) => r.goals_met.rss))}`,
  },
});
