// How fast runs move through the scheduler and the executors, through the whole stack (startStack: every service
// its own process, real PostgreSQL and Redis), driven over the public HTTP API:
//   1. trigger -> running latency: started_at - queued_at of the run resource, one run at a time;
//      baseline: a bare BullMQ add -> worker pickup on the same Redis, in this process (the queue hop alone);
//   2. a 40-node chain of no-op transforms from the trigger's 202 to `succeeded` seen by polling;
//   3. 1-node runs per second with one executor, then with two (these runs are bound by the whole stack's CPU, not
//      by the executor: the executor scaling goal is judged by runs-scaling.mjs, whose runs wait).
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Queue, Worker } from 'bullmq';
import { startBenchStack } from './lib/bench-stack.mjs';
import { transformChain } from './lib/dag-fixture.mjs';
import { printResult, quantile, round } from './lib/report.mjs';
import { jobFor, msBetween, stackConnector, trigger, waitSucceeded } from './lib/runs-api.mjs';

const LATENCY_RUNS = Number(process.env.BENCH_RUNS_LATENCY_N ?? 100);
const CHAIN_NODES = 40;
const CHAIN_REPEATS = Number(process.env.BENCH_RUNS_CHAIN_REPEATS ?? 5);
const THROUGHPUT_RUNS = Number(process.env.BENCH_RUNS_THROUGHPUT_N ?? 150);
const IN_FLIGHT = Number(process.env.BENCH_RUNS_IN_FLIGHT ?? 8);
// Issue 18's goals: the run start, the 40-node chain, sustained 1-node runs/s and the 202's p99 under that load.
const GOALS = { p50_ms: 5, p99_ms: 25, chain_ms: 200, runs_per_sec: 300, trigger_202_p99_ms: 25 };

const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50_ms: round(quantile(sorted, 0.5), 2),
    p99_ms: round(quantile(sorted, 0.99), 2),
    max_ms: round(sorted.at(-1), 2),
  };
};

/** Baseline: add -> pickup of a bare BullMQ queue and worker, one job at a time, as the runs queue is used. */
async function bullmqPickup(redisUrl, count) {
  const prefix = `bench-${randomUUID().slice(0, 8)}`;
  const connection = { url: redisUrl, maxRetriesPerRequest: null };
  const queue = new Queue('pickup', { connection, prefix });
  let onPickup;
  const worker = new Worker('pickup', async () => onPickup(performance.now()), { connection, prefix, concurrency: 2 });
  await Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]);
  const delays = [];
  try {
    for (let i = 0; i < count + 10; i++) {
      const picked = new Promise((resolve) => (onPickup = resolve));
      const sent = performance.now();
      await queue.add('job', { i }, { removeOnComplete: true });
      const delay = (await picked) - sent;
      if (i >= 10) delays.push(delay); // the first few warm the connections up
    }
  } finally {
    await worker.close();
    await queue.obliterate({ force: true });
    await queue.close();
  }
  return summary(delays);
}

/**
 * started_at - queued_at of `count` runs triggered one after the other, and each trigger's 202. Both stamps are whole
 * milliseconds, so the quantiles move by whole milliseconds; their mean is exact to a few hundredths (each stamp's
 * truncation averages out), which is what shows a change of a fraction of a millisecond.
 */
async function triggerToRunning(stack, jobId, count) {
  const latencies = [];
  const accepted = [];
  for (let i = 0; i < count + 5; i++) {
    const sent = performance.now();
    const queued = await trigger(stack, jobId);
    const answered = performance.now();
    const run = await waitSucceeded(stack, jobId, queued.id, { everyMs: 10 });
    if (i < 5) continue; // warm-up
    latencies.push(msBetween(run.queued_at, run.started_at));
    accepted.push(answered - sent);
  }
  const mean_ms = round(latencies.reduce((sum, v) => sum + v, 0) / latencies.length, 2);
  return { ...summary(latencies), mean_ms, trigger_202: summary(accepted) };
}

/** From sending the trigger to seeing `succeeded` (polled every 5 ms), and finished_at - queued_at. */
async function chainRuns(stack, jobId, repeats) {
  const wall = [];
  const accepted = [];
  const recorded = [];
  for (let i = 0; i < repeats + 1; i++) {
    const sent = performance.now();
    const queued = await trigger(stack, jobId);
    const answered = performance.now();
    const run = await waitSucceeded(stack, jobId, queued.id, { everyMs: 5 });
    if (i === 0) continue; // warm-up
    wall.push(performance.now() - sent);
    accepted.push(answered - sent);
    recorded.push(msBetween(run.queued_at, run.finished_at));
  }
  return { wall: summary(wall), trigger_202: summary(accepted), queued_to_finished: summary(recorded) };
}

/**
 * Triggers `count` runs, IN_FLIGHT triggers at a time, waits for all; runs/s over first queued_at .. last finished_at, and
 * the time each 202 took under that load.
 */
async function runsPerSecond(stack, jobId, count) {
  const ids = [];
  const accepted = [];
  let next = 0;
  const triggerer = async () => {
    while (next < count) {
      next++;
      const sent = performance.now();
      ids.push((await trigger(stack, jobId)).id);
      accepted.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, triggerer));
  const runs = [];
  for (const id of ids) runs.push(await waitSucceeded(stack, jobId, id, { everyMs: 50 }));
  const first = Math.min(...runs.map((r) => Date.parse(r.queued_at)));
  const last = Math.max(...runs.map((r) => Date.parse(r.finished_at)));
  return {
    runs: count,
    seconds: round((last - first) / 1000, 2),
    runs_per_sec: round(count / ((last - first) / 1000), 1),
    trigger_202: summary(accepted),
  };
}

const baseline = await bullmqPickup(process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379', LATENCY_RUNS);
console.log(
  `BullMQ add -> pickup (baseline)        p50 ${baseline.p50_ms} ms  p99 ${baseline.p99_ms} ms  (n=${baseline.n})`,
);

// The bench polls runs far faster than a client would: lift the per-credential rate limit out of the way.
// The runs read `select 1` from the server's `postgres` database: on this machine, so private networks are allowed.
const stack = await startBenchStack({ RATE_LIMIT_PER_MINUTE: '1000000', CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' });
let latency, chain, one, two;
try {
  const connectorId = await stackConnector(stack, 'postgres');
  const oneNode = await jobFor(stack, {
    nodes: [{ id: 'one', type: 'source', config: { connector_id: connectorId, query: 'select 1 as n' } }],
    edges: [],
  });
  latency = await triggerToRunning(stack, oneNode, LATENCY_RUNS);
  console.log(
    `trigger -> running (started_at - queued_at)  p50 ${latency.p50_ms} ms  p99 ${latency.p99_ms} ms  max ${latency.max_ms} ms  mean ${latency.mean_ms} ms  (n=${latency.n}; the 202 took p50 ${latency.trigger_202.p50_ms} ms; goal p50 <= ${GOALS.p50_ms}, p99 <= ${GOALS.p99_ms})`,
  );

  chain = await chainRuns(stack, await jobFor(stack, transformChain(connectorId, CHAIN_NODES)), CHAIN_REPEATS);
  console.log(
    `${CHAIN_NODES}-node chain, trigger -> succeeded seen  p50 ${chain.wall.p50_ms} ms  max ${chain.wall.max_ms} ms  (the 202 took p50 ${chain.trigger_202.p50_ms} ms, queued -> finished p50 ${chain.queued_to_finished.p50_ms} ms; goal <= ${GOALS.chain_ms})`,
  );

  one = await runsPerSecond(stack, oneNode, THROUGHPUT_RUNS);
  console.log(
    `1-node runs, one executor              ${one.runs_per_sec} runs/s  (${one.runs} runs in ${one.seconds} s; the 202 p50 ${one.trigger_202.p50_ms} ms p99 ${one.trigger_202.p99_ms} ms)`,
  );
  await stack.startService('executor');
  two = await runsPerSecond(stack, oneNode, THROUGHPUT_RUNS);
  console.log(
    `1-node runs, two executors             ${two.runs_per_sec} runs/s  (${two.runs} runs in ${two.seconds} s; the 202 p50 ${two.trigger_202.p50_ms} ms p99 ${two.trigger_202.p99_ms} ms)`,
  );
} catch (err) {
  console.error(stack.logs().slice(-4000));
  throw err;
} finally {
  await stack.stop();
}

const ratio = round(latency.p50_ms / Math.max(baseline.p50_ms, 0.01), 1);
const scale = round(two.runs_per_sec / one.runs_per_sec, 2);
const met = {
  p50: latency.p50_ms <= GOALS.p50_ms,
  p99: latency.p99_ms <= GOALS.p99_ms,
  chain: chain.wall.p50_ms <= GOALS.chain_ms,
  runs_per_sec: Math.max(one.runs_per_sec, two.runs_per_sec) >= GOALS.runs_per_sec,
  trigger_202_p99: Math.max(one.trigger_202.p99_ms, two.trigger_202.p99_ms) <= GOALS.trigger_202_p99_ms,
};
const verdicts = Object.entries(met)
  .map(([goal, ok]) => `${goal} ${ok ? 'met' : 'NOT met'}`)
  .join(', ');
console.log(
  `ratio: trigger -> running p50 is ${ratio}x a bare BullMQ pickup; two executors give ${scale}x one on these CPU-bound runs (executor scaling: runs-scaling.mjs)`,
);
console.log(
  `goals (p50 <= ${GOALS.p50_ms} ms, p99 <= ${GOALS.p99_ms} ms, chain <= ${GOALS.chain_ms} ms, >= ${GOALS.runs_per_sec} runs/s, 202 p99 <= ${GOALS.trigger_202_p99_ms} ms): ${verdicts}`,
);

printResult('runs-scheduling', {
  trigger_to_running: latency,
  baseline: { name: 'bullmq_add_to_pickup', ...baseline },
  chain: { nodes: CHAIN_NODES, ...chain },
  runs_per_sec: { one_executor: one, two_executors: two, scale },
  goals: GOALS,
  goals_met: met,
  headline: {
    subject: `trigger->running p50 ${latency.p50_ms} ms p99 ${latency.p99_ms} ms; chain40 ${chain.wall.p50_ms} ms; ${one.runs_per_sec}/${two.runs_per_sec} runs/s`,
    baseline: `BullMQ pickup p50 ${baseline.p50_ms} ms p99 ${baseline.p99_ms} ms`,
    ratio: `${ratio}x baseline p50 (goal p50 <= ${GOALS.p50_ms} ms)`,
  },
});
