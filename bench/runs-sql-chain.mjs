// 40 sequential `sql` nodes of `select pg_sleep(0.01)` on a postgres connector (the shape of Windmill's orchestration
// benchmark), through the whole stack (startStack: every service its own process), from sending Trigger Run to seeing
// `succeeded`, beside the least the same work costs: the 40 statements one after the other on one pooled connection
// from this process (400 ms of sleep plus bare round trips). Goal (issue 18): <= 500 ms, i.e. <= 100 ms of
// orchestration over the 400 ms of work. Between the two, the run engine alone: the same DAG through executeRun in
// this process, on a pooled connector and a kept DuckDB as an executor's, with no queue, scheduler or reports: what
// the engine's own work per node costs, so the rest of the orchestration is the hops around it.
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startBenchStack } from './lib/bench-stack.mjs';
import { createBenchDatabase } from './lib/bench-database.mjs';
import { engineAlone } from './lib/engine-alone.mjs';
import { printResult, quantile, round } from './lib/report.mjs';
import { jobFor, msBetween, stackConnector, trigger, waitSucceeded } from './lib/runs-api.mjs';
import { stackProfiles } from './lib/stack-profiles.mjs';

const NODES = Number(process.env.BENCH_SQL_CHAIN_NODES ?? 40);
const STATEMENT = 'select pg_sleep(0.01)';
const WORK_MS = NODES * 10;
const RUNS = Number(process.env.BENCH_SQL_CHAIN_RUNS ?? 10);
const GOALS = { wall_ms: 500, orchestration_ms: 100 };

const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50_ms: round(quantile(sorted, 0.5), 1),
    p95_ms: round(quantile(sorted, 0.95), 1),
    max_ms: round(sorted.at(-1), 1),
  };
};

/** Baseline: the 40 statements in sequence on one pooled connection, `rounds` times after a warm-up round. */
async function pooledStatements(url, rounds) {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const times = [];
  const cpu = cpuMeter();
  try {
    for (let r = 0; r < rounds + 1; r++) {
      if (r === 1) cpu.start();
      const started = performance.now();
      for (let i = 0; i < NODES; i++) await pool.query(STATEMENT);
      if (r > 0) times.push(performance.now() - started);
    }
  } finally {
    await pool.end();
  }
  return { ...summary(times), cpu_ms_per_run: cpu.msPer(rounds) };
}

/** This process's CPU (every thread) from start() on, in ms per run: what the engine's work costs beside its wall time. */
function cpuMeter() {
  let from;
  return {
    start: () => (from = process.cpuUsage()),
    msPer: (runs) => {
      const used = process.cpuUsage(from);
      return round((used.user + used.system) / 1000 / runs, 2);
    },
  };
}

/** The DAG through the run engine in this process, `rounds` times after a warm-up round (lib/engine-alone.mjs). */
async function engineAloneRuns(url, dag, rounds) {
  const engine = engineAlone(url, dag.nodes[0].config.connector_id);
  const times = [];
  const cpu = cpuMeter();
  try {
    for (let r = 0; r < rounds + 1; r++) {
      if (r === 1) cpu.start();
      const started = performance.now();
      await engine.run(dag);
      if (r > 0) times.push(performance.now() - started);
    }
  } finally {
    await engine.close();
  }
  return { ...summary(times), cpu_ms_per_run: cpu.msPer(rounds) };
}

/**
 * Where a run's time went, from the run resource: queued -> first node started, the nodes' own durations, the gaps
 * between one node's end and the next one's start, and last node finished -> run finished_at.
 */
function hops(run) {
  const nodes = [...run.nodes].sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
  const gaps = nodes.slice(1).map((n, i) => msBetween(nodes[i].finished_at, n.started_at));
  return {
    queued_to_first_node: msBetween(run.queued_at, nodes[0].started_at),
    queued_to_started: msBetween(run.queued_at, run.started_at),
    started_to_first_node: msBetween(run.started_at, nodes[0].started_at),
    node_ms: nodes.map((n) => msBetween(n.started_at, n.finished_at)),
    gap_ms: gaps,
    last_node_to_finished: msBetween(nodes.at(-1).finished_at, run.finished_at),
  };
}

/** `count` runs one after the other (after one warm-up run): trigger sent -> `succeeded` seen, polled every 10 ms. */
async function chainRuns(stack, jobId, count) {
  const wall = [];
  const recorded = [];
  const breakdown = {
    sent_to_202: [],
    sent_to_queued: [],
    queued_to_first_node: [],
    queued_to_started: [],
    started_to_first_node: [],
    node_ms: [],
    gap_ms: [],
    last_node_to_finished: [],
    finished_to_seen: [],
  };
  for (let i = 0; i < count + 1; i++) {
    const sent = performance.now();
    const sentAt = new Date().toISOString();
    const { id } = await trigger(stack, jobId);
    const accepted = performance.now();
    const run = await waitSucceeded(stack, jobId, id, { everyMs: 10 });
    const seenAt = new Date().toISOString();
    if (i === 0) continue; // warm-up
    wall.push(performance.now() - sent);
    recorded.push(msBetween(run.queued_at, run.finished_at));
    // The stack's clocks and this process's are the same machine's: trigger sent -> queued_at and finished_at ->
    // succeeded seen (polled every 10 ms, so up to 10 ms of it is the poll) compare across processes.
    const h = {
      ...hops(run),
      sent_to_202: accepted - sent,
      sent_to_queued: msBetween(sentAt, run.queued_at),
      finished_to_seen: msBetween(run.finished_at, seenAt),
    };
    for (const key of Object.keys(breakdown)) breakdown[key].push(...[h[key]].flat());
  }
  return {
    wall: summary(wall),
    queued_to_finished: summary(recorded),
    hops: Object.fromEntries(Object.entries(breakdown).map(([key, values]) => [key, summary(values)])),
  };
}

// The connector's database is on this machine: private networks allowed; the bench polls faster than a client would.
// `--profile`: CPU profiles of every service over the measured runs (not the warm-up's boot).
const profiles = stackProfiles();
const stack = await startBenchStack({
  RATE_LIMIT_PER_MINUTE: '1000000',
  CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true',
  ...profiles.env,
});
let database, baseline, engine, chain;
try {
  database = await createBenchDatabase();
  baseline = await pooledStatements(database.url, RUNS);
  console.log(
    `${NODES} x ${STATEMENT} on one pooled connection (baseline)  p50 ${baseline.p50_ms} ms  p95 ${baseline.p95_ms} ms  (n=${baseline.n}; CPU ${baseline.cpu_ms_per_run} ms a run)`,
  );
  const connectorId = await stackConnector(stack, database.name);
  const nodes = Array.from({ length: NODES }, (_, i) => ({
    id: `s${i}`,
    type: 'sql',
    config: { connector_id: connectorId, sql: STATEMENT },
  }));
  const edges = nodes.slice(1).map((n, i) => ({ from: `s${i}`, to: n.id }));
  // The bench process connects to its own database as the stack's executor does (private networks allowed).
  process.env.CONNECTOR_ALLOW_PRIVATE_NETWORKS = 'true';
  engine = await engineAloneRuns(database.url, { nodes, edges }, RUNS);
  console.log(
    `${NODES} sql nodes through the run engine alone (executeRun in this process, pooled)  p50 ${engine.p50_ms} ms  p95 ${engine.p95_ms} ms  (n=${engine.n}; CPU ${engine.cpu_ms_per_run} ms a run, every thread)`,
  );
  const jobId = await jobFor(stack, { nodes, edges });
  profiles.start(stack);
  chain = await chainRuns(stack, jobId, RUNS);
} catch (err) {
  console.error(stack.logs().slice(-4000));
  throw err;
} finally {
  await stack.stop();
  await database?.drop();
}

const orchestration = round(chain.wall.p50_ms - WORK_MS, 1);
const overBaseline = round(chain.wall.p50_ms - baseline.p50_ms, 1);
const ratio = round(chain.wall.p50_ms / baseline.p50_ms, 2);
const met = { wall: chain.wall.p50_ms <= GOALS.wall_ms, orchestration: orchestration <= GOALS.orchestration_ms };
const h = chain.hops;
console.log(
  `${NODES} sql nodes, trigger -> succeeded seen  p50 ${chain.wall.p50_ms} ms  p95 ${chain.wall.p95_ms} ms  max ${chain.wall.max_ms} ms  (n=${chain.wall.n}; queued -> finished p50 ${chain.queued_to_finished.p50_ms} ms)`,
);
console.log(
  `  per run: sent -> 202 p50 ${h.sent_to_202.p50_ms} ms; sent -> queued_at p50 ${h.sent_to_queued.p50_ms} ms; queued -> started (claim) p50 ${h.queued_to_started.p50_ms} ms; started -> first node p50 ${h.started_to_first_node.p50_ms} ms`,
);
console.log(
  `  per run: queued -> first node p50 ${h.queued_to_first_node.p50_ms} ms; last node -> finished p50 ${h.last_node_to_finished.p50_ms} ms; finished -> succeeded seen p50 ${h.finished_to_seen.p50_ms} ms (10 ms polls)`,
);
console.log(
  `  per node: duration p50 ${h.node_ms.p50_ms} ms p95 ${h.node_ms.p95_ms} ms (10 ms of sleep); gap to the next node p50 ${h.gap_ms.p50_ms} ms p95 ${h.gap_ms.p95_ms} ms`,
);
console.log(
  `orchestration (p50 - ${WORK_MS} ms of sleep) ${orchestration} ms; ${overBaseline} ms over the baseline; ratio ${ratio}x baseline; the engine alone ${round(engine.p50_ms - baseline.p50_ms, 1)} ms over it, the hops around it ${round(chain.wall.p50_ms - engine.p50_ms, 1)} ms`,
);
console.log(
  `goals: <= ${GOALS.wall_ms} ms ${met.wall ? 'met' : 'NOT met'}; orchestration <= ${GOALS.orchestration_ms} ms ${met.orchestration ? 'met' : 'NOT met'}`,
);

profiles.print();

printResult('runs-sql-chain', {
  nodes: NODES,
  profiled: profiles.enabled,
  statement: STATEMENT,
  chain,
  baseline: { name: 'pooled_connection_40_statements', ...baseline },
  engine_alone: engine,
  orchestration_ms: orchestration,
  over_baseline_ms: overBaseline,
  ratio,
  goals: GOALS,
  goals_met: met,
  headline: {
    subject: `sql chain${NODES} p50 ${chain.wall.p50_ms} ms p95 ${chain.wall.p95_ms} ms (orchestration ${orchestration} ms)`,
    baseline: `pooled 40 x pg_sleep(0.01) p50 ${baseline.p50_ms} ms`,
    ratio: `${ratio}x baseline (goal <= ${GOALS.wall_ms} ms: ${met.wall ? 'met' : 'NOT met'})`,
  },
});
