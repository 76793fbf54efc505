// Executor scaling where the executor is the bottleneck (issue 18: two replicas >= 1.6x one). Each run's one node
// waits on PostgreSQL (`pg_sleep`, a remote database or API's answer), so one executor's slots (EXECUTOR_CONCURRENCY)
// bound runs/s while the rest of the stack stays far from its CPU limit; runs-scheduling.mjs's 1-node `select 1` runs
// measure the whole stack's CPU instead.
//   subject:  runs/s with one executor, then with a second one started (same concurrency), through the public API;
//   baseline: the same statement from this process on a pg.Pool of EXECUTOR_CONCURRENCY connections: the rate one
//             executor's slots could reach if a run cost nothing but its wait.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { DEFAULT_RUN_MEMORY_LIMIT, parseSize } from '@conduit/executor';
import { startBenchStack } from './lib/bench-stack.mjs';
import { createBenchDatabase } from './lib/bench-database.mjs';
import { startCpuAccount } from './lib/cpu-usage.mjs';
import { printResult, round } from './lib/report.mjs';
import { allRuns, drained, jobFor, stackConnector, trigger, triggerMany, waitSucceeded } from './lib/runs-api.mjs';

const CONCURRENCY = Number(process.env.BENCH_SCALE_CONCURRENCY ?? 8);
const WAIT_MS = Number(process.env.BENCH_SCALE_WAIT_MS ?? 2000);
/** Runs per phase = WAVES x CONCURRENCY x executors, so both phases last about WAVES waits. */
const WAVES = Number(process.env.BENCH_SCALE_WAVES ?? 8);
const IN_FLIGHT = 16;
const GOAL_SCALE = 1.6;

const RUN_MEMORY_BYTES = parseSize(process.env.RUN_MEMORY_LIMIT ?? DEFAULT_RUN_MEMORY_LIMIT);
const MiB = 1024 * 1024;

// Each wait drawn from 0.75-1.25 x WAIT_MS, so the runs' starts and ends spread out instead of a whole executor's
// slots finishing, reporting and claiming in the same instant each wave (a burst that measures the stack's CPU).
const STATEMENT = `select 1 as n from (select pg_sleep(${WAIT_MS / 1000} * (0.75 + random() / 2))) as s`;

/** Runs/s while every slot was busy: ended between the first end and the last start, over that window. */
function steadyRate(spans) {
  const from = Math.min(...spans.map((r) => r.end));
  const to = Math.max(...spans.map((r) => r.start));
  const ended = spans.filter((r) => r.end > from && r.end <= to).length;
  return { per_sec: round(ended / ((to - from) / 1000), 2), ended, seconds: round((to - from) / 1000, 2) };
}

/** Baseline: WAVES x CONCURRENCY statements, CONCURRENCY at a time, on one pool of CONCURRENCY connections. */
async function pooledStatements(url) {
  const pool = new pg.Pool({ connectionString: url, max: CONCURRENCY });
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, () => pool.query('select 1'))); // connections open first
    let left = WAVES * CONCURRENCY;
    const spans = [];
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) {
          const start = performance.now();
          await pool.query(STATEMENT);
          spans.push({ start, end: performance.now() });
        }
      }),
    );
    return { statements: spans.length, ...steadyRate(spans) };
  } finally {
    await pool.end();
  }
}

/** A process's resident set now and its high-water mark, in MiB (/proc/<pid>/status). */
function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rss: round(kib('VmRSS') / 1024, 0), peak: round(kib('VmHWM') / 1024, 0) };
}

/**
 * Triggers `count` runs (IN_FLIGHT triggers at a time, far faster than the slots take them), waits until none is left,
 * checks every one succeeded (none lost); runs/s over first queued_at .. last finished_at, and the CPU per run of
 * each process over the phase.
 */
async function phase(stack, jobId, count) {
  const groups = {};
  for (const p of stack.processes) (groups[p.name] ??= []).push(p.child.pid);
  const endCpu = startCpuAccount(groups);
  const ids = await triggerMany(stack, jobId, count, IN_FLIGHT);
  await drained(stack, jobId, 300_000);
  const cpu = endCpu();
  const wanted = new Set(ids);
  const runs = (await allRuns(stack, jobId)).filter((r) => wanted.has(r.id));
  const bad = runs.filter((r) => r.status !== 'succeeded');
  if (runs.length !== count || bad.length > 0)
    throw new Error(`${count - runs.length} runs missing, ${bad.length} not succeeded (${bad[0]?.status ?? '-'})`);
  // Steady state only: from the first run's end (every slot has been busy since) to the last run's start (the queue is
  // empty after it and the slots drain), the runs that ended in between.
  const steady = steadyRate(runs.map((r) => ({ start: Date.parse(r.started_at), end: Date.parse(r.finished_at) })));
  const cpuMsPerRun = Object.fromEntries(
    Object.entries(cpu.seconds).map(([label, used]) => [label, round((used * 1000) / count, 2)]),
  );
  const busyPct = Object.fromEntries(
    Object.entries(cpu.seconds).map(([label, used]) => [label, round((used / cpu.wallSec) * 100, 0)]),
  );
  const span =
    (Math.max(...runs.map((r) => Date.parse(r.finished_at))) - Math.min(...runs.map((r) => Date.parse(r.queued_at)))) /
    1000;
  return {
    runs: count,
    span_seconds: round(span, 2),
    runs_per_sec: steady.per_sec,
    steady: { ended: steady.ended, seconds: steady.seconds },
    cpu_ms_per_run: cpuMsPerRun,
    cpu_pct_of_core: busyPct,
  };
}

const describe = (label, p) =>
  console.log(
    `${label}  ${p.runs_per_sec} runs/s  (${p.steady.ended} ended in the ${p.steady.seconds} s all slots were busy; ${p.runs} runs in ${p.span_seconds} s from first queued to last finished; ms of CPU per run: ${Object.entries(
      p.cpu_ms_per_run,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')})`,
  );

// Every executor gets CONCURRENCY slots and as many pooled connections per connector (CONNECTOR_POOL_MAX), so its
// slots, not its pool, bound what it takes at once.
const stack = await startBenchStack({
  RATE_LIMIT_PER_MINUTE: '1000000',
  CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true',
  EXECUTOR_CONCURRENCY: String(CONCURRENCY),
  CONNECTOR_POOL_MAX: String(CONCURRENCY),
});
let database, baseline, one, two, memory;
try {
  database = await createBenchDatabase();
  baseline = await pooledStatements(database.url);
  console.log(
    `baseline: ${baseline.statements} x pg_sleep(${(0.75 * WAIT_MS) / 1000}-${(1.25 * WAIT_MS) / 1000} s) on a pg.Pool of ${CONCURRENCY}  ${baseline.per_sec} statements/s  (${baseline.ended} ended in the ${baseline.seconds} s all connections were busy)`,
  );
  const connectorId = await stackConnector(stack, database.name);
  const jobId = await jobFor(stack, {
    nodes: [{ id: 'wait', type: 'source', config: { connector_id: connectorId, query: STATEMENT } }],
    edges: [],
  });
  // Warm-up: the connector's pool, the executor's spare workspaces.
  await waitSucceeded(stack, jobId, (await trigger(stack, jobId)).id, { everyMs: 50 });

  // The first executor's memory with every slot busy: its own size plus its runs', against the bound the executor's
  // config checks (idle + EXECUTOR_CONCURRENCY x RUN_MEMORY_LIMIT within the container's limit).
  const executorPid = stack.processes.find((p) => p.name === 'executor').child.pid;
  const idleMiB = rssMiB(executorPid).rss;
  one = await phase(stack, jobId, WAVES * CONCURRENCY);
  describe('one executor ', one);
  const peakMiB = rssMiB(executorPid).peak;
  memory = {
    idle_mib: idleMiB,
    peak_mib: peakMiB,
    bound_mib: round(idleMiB + (CONCURRENCY * RUN_MEMORY_BYTES) / MiB, 0),
  };
  console.log(
    `one executor's RSS: idle ${memory.idle_mib} MiB, peak ${memory.peak_mib} MiB with ${CONCURRENCY} runs at once (bound: idle + ${CONCURRENCY} x RUN_MEMORY_LIMIT = ${memory.bound_mib} MiB)`,
  );
  await stack.startService('executor');
  await waitSucceeded(stack, jobId, (await trigger(stack, jobId)).id, { everyMs: 50 });
  two = await phase(stack, jobId, WAVES * CONCURRENCY * 2);
  describe('two executors', two);
} catch (err) {
  console.error(stack.logs().slice(-4000));
  throw err;
} finally {
  await stack.stop();
  await database?.drop();
}

const scale = round(two.runs_per_sec / one.runs_per_sec, 2);
const slotUse = round((one.runs_per_sec / baseline.per_sec) * 100, 0);
console.log(
  `ratio: two executors give ${scale}x one (goal >= ${GOAL_SCALE}x: ${scale >= GOAL_SCALE ? 'met' : 'NOT met'}); one executor reaches ${slotUse}% of the pooled baseline's rate`,
);

printResult('runs-scaling', {
  concurrency: CONCURRENCY,
  wait_ms: WAIT_MS,
  baseline: { name: 'pg_pool_statements', ...baseline },
  one_executor: one,
  two_executors: two,
  executor_memory: memory,
  scale,
  goal_scale: GOAL_SCALE,
  goal_met: scale >= GOAL_SCALE,
  headline: {
    subject: `${one.runs_per_sec} -> ${two.runs_per_sec} runs/s, 1 -> 2 executors of ${CONCURRENCY} slots`,
    baseline: `pg.Pool of ${CONCURRENCY}: ${baseline.per_sec} waits/s`,
    ratio: `${scale}x (goal >= ${GOAL_SCALE}x); one executor at ${slotUse}% of baseline`,
  },
});
