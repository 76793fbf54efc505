// The run engine's own cost per node, without the stack around it: the 40-node chain of runs-scheduling.mjs
// (lib/dag-fixture.mjs: a postgres `source` of `select 1 as n`, then 39 transforms each selecting `n` of the one
// before) through executeRun in this process, on a pooled connector and a kept DuckDB as an executor has them,
// with no queue, scheduler or reports. Beside it the least the same DuckDB work costs: the 39 CREATE TABLE ... AS
// statements one after the other on one connection of a DuckDB with the run's threads. The difference is what the
// engine adds per transform node (its checks of the tenant's SQL, the node's columns, its bookkeeping); the chain's
// goal (<= 200 ms, issue 18) is judged through the whole stack by runs-scheduling.mjs.
import { performance } from 'node:perf_hooks';
import duckdb from '@duckdb/node-api';
import { createBenchDatabase } from './lib/bench-database.mjs';
import { transformChain } from './lib/dag-fixture.mjs';
import { engineAlone, runMemoryOfExecutor } from './lib/engine-alone.mjs';
import { printResult, quantile, round } from './lib/report.mjs';

const NODES = Number(process.env.BENCH_ENGINE_CHAIN_NODES ?? 40);
const RUNS = Number(process.env.BENCH_ENGINE_CHAIN_RUNS ?? 40);
const WARMUP = 5;

const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50_ms: round(quantile(sorted, 0.5), 1), p95_ms: round(quantile(sorted, 0.95), 1) };
};

/** `rounds` timed calls of `once` after WARMUP untimed ones, with this process's CPU (every thread) per call. */
async function timed(rounds, once) {
  const times = [];
  let from;
  for (let r = 0; r < rounds + WARMUP; r++) {
    if (r === WARMUP) from = process.cpuUsage();
    const started = performance.now();
    await once();
    if (r >= WARMUP) times.push(performance.now() - started);
  }
  const used = process.cpuUsage(from);
  return { ...summary(times), cpu_ms_per_run: round((used.user + used.system) / 1000 / rounds, 1) };
}

const memory = runMemoryOfExecutor();
const createStatements = Array.from(
  { length: NODES - 1 },
  (_, i) => `create or replace table n${i + 1} as (select n from n${i})`,
);

/** Baseline: the transforms' statements alone on one DuckDB connection (the run's threads). */
async function bareStatements(rounds) {
  const instance = await duckdb.DuckDBInstance.create(':memory:', { threads: memory.duckdb.threads });
  const connection = await instance.connect();
  try {
    await connection.run('create table n0 as select 1 as n');
    return await timed(rounds, async () => {
      for (const sql of createStatements) await connection.run(sql);
    });
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The DAG through the run engine alone (lib/engine-alone.mjs). */
async function engineAloneRuns(url, rounds) {
  const connectorId = 'con_bench_engine';
  const dag = transformChain(connectorId, NODES);
  const engine = engineAlone(url, connectorId);
  try {
    return await timed(rounds, () => engine.run(dag));
  } finally {
    await engine.close();
  }
}

// The bench process connects to its own database on this machine, as a stack allowing private networks does.
process.env.CONNECTOR_ALLOW_PRIVATE_NETWORKS = 'true';
const database = await createBenchDatabase();
let baseline, engine;
try {
  baseline = await bareStatements(RUNS);
  console.log(
    `${NODES - 1} x CREATE TABLE ... AS on one DuckDB connection (baseline)  p50 ${baseline.p50_ms} ms  p95 ${baseline.p95_ms} ms  (n=${baseline.n}; CPU ${baseline.cpu_ms_per_run} ms a run)`,
  );
  engine = await engineAloneRuns(database.url, RUNS);
} finally {
  await database.drop();
}
const perNode = round((engine.p50_ms - baseline.p50_ms) / (NODES - 1), 2);
const ratio = round(engine.p50_ms / baseline.p50_ms, 2);
console.log(
  `${NODES}-node chain (source + ${NODES - 1} transforms) through the run engine alone  p50 ${engine.p50_ms} ms  p95 ${engine.p95_ms} ms  (n=${engine.n}; CPU ${engine.cpu_ms_per_run} ms a run, every thread)`,
);
console.log(`the engine adds ${perNode} ms a transform node over its statement alone; ratio ${ratio}x baseline`);

printResult('runs-engine-chain', {
  nodes: NODES,
  engine_alone: engine,
  baseline: { name: 'bare_create_table_as_statements', ...baseline },
  over_baseline_ms_per_node: perNode,
  ratio,
  headline: {
    subject: `engine alone, ${NODES}-node chain p50 ${engine.p50_ms} ms (CPU ${engine.cpu_ms_per_run} ms)`,
    baseline: `${NODES - 1} bare CREATE TABLE AS p50 ${baseline.p50_ms} ms`,
    ratio: `${ratio}x baseline (+${perNode} ms a node)`,
  },
});
