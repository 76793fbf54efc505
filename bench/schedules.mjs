// 10,000 active every-minute schedules on one scheduler, through the whole stack (startStack: every service its own
// process, real PostgreSQL and Redis). Prints, over `--minutes N` minutes (default 5):
//   - fire time: queued_at of each scheduled run - the minute it was scheduled for, p50 / p99 / max;
//   - missed (a job and minute without a run) and doubled (a job and minute with more than one);
//   - the CPU the scheduler, PostgreSQL, Redis and the other services used over those minutes.
// Baselines, in this script: (1) bare BullMQ job schedulers, one per job, every minute, firing into a no-op worker
// (the scheduler's former design, without its work), over one minute; (2) a bare PostgreSQL insert of the same
// number of rows in batches of 500 from one connection (the least a run per job costs the database).
// The executor is stopped once the stack is up: runs stay queued and only queued_at is measured, so 10,000 runs a
// minute do not swamp the machine. The jobs are made with the API for a few pipelines, then copied in the
// scheduler's own table (10,000 API calls would take longer than the measure).
//   node schedules.mjs --minutes 1 --profile   also CPU-profiles the scheduler over the measured minutes
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue, Worker } from 'bullmq';
import pg from 'pg';
import { stopProcess } from '@conduit/testing';
import { startBenchStack } from './lib/bench-stack.mjs';
import { printResult, quantile, round } from './lib/report.mjs';
import { startCpuWindow } from './lib/cpu-usage.mjs';
import { printProfiles } from './lib/cpu-profile-summary.mjs';
import { api, stackConnector } from './lib/runs-api.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const JOBS = Number(process.env.BENCH_SCHEDULE_JOBS ?? 10_000);
const MINUTES = arg('minutes', Number(process.env.BENCH_SCHEDULE_MINUTES ?? 5));
const PIPELINES = 20;
const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..');
const profileDir = process.argv.includes('--profile') ? mkdtempSync(join(tmpdir(), 'conduit-bench-prof-')) : undefined;
const GOAL_P99_MS = 1000;
const MINUTE = 60_000;
const nextMinute = (margin = 0) => Math.ceil((Date.now() + margin) / MINUTE) * MINUTE;
const sleepUntil = (at) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
const summary = (sorted) => ({
  p50_ms: round(quantile(sorted, 0.5), 1),
  p99_ms: round(quantile(sorted, 0.99), 1),
  max_ms: round(sorted.at(-1), 1),
});

/** Baseline 1: JOBS BullMQ job schedulers every minute, a no-op worker; delay of each pickup after its minute. */
async function bullmqSchedulers(redisUrl) {
  const connection = { url: redisUrl, maxRetriesPerRequest: null };
  const prefix = `bench-${randomUUID().slice(0, 8)}`;
  const queue = new Queue('ticks', { connection, prefix });
  for (let i = 0; i < JOBS; i += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, JOBS - i) }, (_, k) =>
        queue.upsertJobScheduler(`job${i + k}`, { pattern: '* * * * *' }, { name: 'tick', data: {} }),
      ),
    );
  }
  const delays = [];
  let minute = nextMinute();
  const worker = new Worker('ticks', async () => void delays.push(Date.now() - minute), {
    connection,
    prefix,
    concurrency: 100,
  });
  await sleepUntil(minute);
  const deadline = minute + 50_000;
  while (delays.length < JOBS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  minute = Infinity;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return { fired: delays.length, ...summary(delays.sort((a, b) => a - b)) };
}

/** Baseline 2: JOBS rows inserted in batches of 500 from one connection; delay of each batch's commit from the start. */
async function bareInserts(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`CREATE TEMP TABLE fires (job_id text PRIMARY KEY, fired_at timestamptz NOT NULL)`);
  const delays = [];
  const start = Date.now();
  for (let i = 0; i < JOBS; i += 500) {
    const ids = Array.from({ length: Math.min(500, JOBS - i) }, (_, k) => `job_${i + k}`);
    await client.query(`INSERT INTO fires SELECT id, now() FROM unnest($1::text[]) AS id`, [ids]);
    const at = Date.now() - start;
    for (let k = 0; k < ids.length; k++) delays.push(at);
  }
  await client.end();
  return summary(delays);
}

/** The scheduler's batch lines logged since `from`. */
function loggedBatches(stack, from) {
  return stack.processes
    .filter((p) => p.name === 'scheduler')
    .flatMap((p) => p.output.join('').split('\n'))
    .filter((line) => line.includes('"scheduled runs queued"'))
    .map((line) => JSON.parse(line))
    .filter((b) => b.ms && Date.parse(b.time) >= from);
}

/**
 * Where the batches' time went, hop by hop, from the scheduler's `scheduled runs queued` lines (each batch logs the
 * milliseconds of its steps and how long after its fire time it committed): mean and max per hop, and when the runs
 * became visible (their batch's commit - their minute; queued_at is taken before the insert, so it says less).
 */
function batchHops(stack, from) {
  const batches = loggedBatches(stack, from);
  const hops = {};
  for (const b of batches) for (const [hop, ms] of Object.entries(b.ms)) (hops[hop] ??= []).push(ms);
  const stats = Object.fromEntries(
    Object.entries(hops).map(([hop, ms]) => [
      hop,
      { mean_ms: round(ms.reduce((a, x) => a + x, 0) / ms.length, 0), max_ms: Math.max(...ms) },
    ]),
  );
  const committed = batches.flatMap((b) => Array.from({ length: b.runs }, () => b.late_ms)).sort((a, b) => a - b);
  return { batches: batches.length, hops: stats, committed: summary(committed) };
}

const load = (await import('node:os')).loadavg()[0];
console.log(`${JOBS} every-minute schedules over ${MINUTES} minute(s); load average ${round(load, 2)} at start`);
const bull = await bullmqSchedulers(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
console.log(
  `baseline bare BullMQ job schedulers: ${bull.fired} fired, delay p50 ${bull.p50_ms} ms, p99 ${bull.p99_ms} ms, max ${bull.max_ms} ms`,
);

// The connector of the pipelines is on this machine (its server is never reached: the runs are not executed).
const profileEnv = profileDir
  ? { NODE_OPTIONS: `--import=${join(HERE, 'lib/cpu-profiler-preload.mjs')}`, BENCH_PROFILE_DIR: profileDir }
  : {};
const stack = await startBenchStack({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true', ...profileEnv });
const db = new pg.Client({ connectionString: stack.databaseUrl });
try {
  await db.connect();
  const inserts = await bareInserts(stack.databaseUrl);
  console.log(
    `baseline bare PostgreSQL inserts of ${JOBS} rows (batches of 500): done p50 ${inserts.p50_ms} ms, p99 ${inserts.p99_ms} ms`,
  );
  // Runs stay queued: nothing executes them.
  for (const p of stack.processes.filter((x) => x.name === 'executor')) await stopProcess(p.child);

  // A few pipelines of one source node (valid; never run), a job on each, then copies of those jobs up to JOBS.
  const connectorId = await stackConnector(stack, 'postgres');
  const dag = {
    nodes: [{ id: 'extract', type: 'source', config: { connector_id: connectorId, query: 'select 1 as x' } }],
    edges: [],
  };
  const templates = [];
  for (let i = 0; i < PIPELINES; i++) {
    const pipeline = await api(stack, 'POST', '/v2/pipelines', { name: `bench-sched-${i}`, dag }, 201);
    if (pipeline.status !== 'valid')
      throw new Error(`bench pipeline is invalid: ${JSON.stringify(pipeline.validation.errors)}`);
    const job = await api(
      stack,
      'POST',
      '/v2/jobs',
      { name: `bench-sched-${i}`, pipeline_id: pipeline.id, schedule: '* * * * *', concurrency_policy: 'allow' },
      201,
    );
    templates.push(job.id);
  }
  await db.query(`SET search_path TO scheduler`);
  const first = nextMinute(15_000);
  const copies = JOBS - templates.length;
  await db.query(
    `INSERT INTO jobs (id, tenant_id, name, description, pipeline_id, schedule, timezone, status, concurrency_policy, parameters, revision, created_at, updated_at, next_fire_at)
     SELECT j.id || '_' || g, j.tenant_id, j.name || '_' || g, j.description, j.pipeline_id, j.schedule, j.timezone, 'active', j.concurrency_policy, j.parameters, 1, j.created_at, j.updated_at, $2
       FROM generate_series(0, $3 - 1) AS g JOIN jobs j ON j.id = ($1::text[])[g % array_length($1::text[], 1) + 1]`,
    [templates, new Date(first), copies],
  );
  await db.query(`UPDATE jobs SET next_fire_at = $2 WHERE id = ANY($1)`, [templates, new Date(first)]);
  await db.query(`ANALYZE jobs`);
  const last = first + (MINUTES - 1) * MINUTE;
  console.log(
    `${JOBS} jobs on ${PIPELINES} pipelines; measuring the fires of ${new Date(first).toISOString()} .. ${new Date(last).toISOString()}`,
  );

  await sleepUntil(first - 1000);
  if (profileDir)
    for (const p of stack.processes.filter((x) => x.name === 'scheduler')) process.kill(p.child.pid, 'SIGWINCH');
  const windowStart = Date.now();
  const pidsOf = (name) =>
    stack.processes.filter((p) => p.name === name && p.child.exitCode === null).map((p) => p.child.pid);
  const cpuWindow = startCpuWindow({
    scheduler: pidsOf('scheduler'),
    monitoring: pidsOf('monitoring'),
    'webhook-dispatcher': pidsOf('webhook-dispatcher'),
    catalog: pidsOf('catalog'),
    gateway: pidsOf('gateway'),
  });
  // Until every fire of the last minute is made (or 50 s after it: whatever is not there by then is missed).
  const expected = JOBS * MINUTES;
  const count = async () =>
    (await db.query(`SELECT count(*)::int AS n FROM runs WHERE trigger = 'schedule'`)).rows[0].n;
  await sleepUntil(last);
  while ((await count()) < expected && Date.now() < last + 50_000) await new Promise((r) => setTimeout(r, 200));
  const cpu = cpuWindow();
  const windowMs = Date.now() - windowStart;

  const { rows: fires } = await db.query(
    `SELECT job_id, split_part(tick_id, ':', 3)::bigint AS tick, (extract(epoch FROM queued_at) * 1000)::bigint AS queued
       FROM runs WHERE trigger = 'schedule' AND split_part(tick_id, ':', 3)::bigint BETWEEN $1 AND $2`,
    [first, last],
  );
  const perMinute = new Map();
  const delays = [];
  for (const f of fires) {
    const minute = Math.floor(Number(f.tick) / MINUTE) * MINUTE;
    const key = `${f.job_id}@${minute}`;
    perMinute.set(key, (perMinute.get(key) ?? 0) + 1);
    delays.push(Number(f.queued) - minute);
  }
  delays.sort((a, b) => a - b);
  const doubled = [...perMinute.values()].filter((n) => n > 1).length;
  const missed = expected - perMinute.size;
  const fire = { runs: fires.length, ...summary(delays), missed, doubled };
  const cpuLine = Object.entries(cpu)
    .map(([who, pct]) => `${who} ${pct}%`)
    .join(', ');
  // CPU time over the window (the measured minutes, from 1 s before the first), per measured minute.
  const schedulerMsPerMinute = round(((cpu.scheduler / 100) * windowMs) / MINUTES, 0);
  console.log(
    `fire time (queued_at - scheduled minute) over ${fires.length} runs: p50 ${fire.p50_ms} ms, p99 ${fire.p99_ms} ms, max ${fire.max_ms} ms (goal p99 <= ${GOAL_P99_MS} ms); missed ${missed}, doubled ${doubled}`,
  );
  // A batch's line is written after its commit: wait for the lines of every run counted.
  const logged = () => loggedBatches(stack, windowStart).reduce((n, b) => n + b.runs, 0);
  for (const until = Date.now() + 5000; logged() < fires.length && Date.now() < until;)
    await new Promise((r) => setTimeout(r, 100));
  const hops = batchHops(stack, windowStart);
  console.log(
    `${hops.batches} batches, hop by hop (mean / max ms): ${Object.entries(hops.hops)
      .map(([hop, h]) => `${hop} ${h.mean_ms} / ${h.max_ms}`)
      .join(', ')}`,
  );
  console.log(
    `runs committed (visible) after their minute: p50 ${hops.committed.p50_ms} ms, p99 ${hops.committed.p99_ms} ms, max ${hops.committed.max_ms} ms`,
  );
  console.log(
    `CPU over the measured minutes (% of one core): ${cpuLine}; the scheduler used ${schedulerMsPerMinute} ms of CPU a minute, ${round((schedulerMsPerMinute * 1000) / JOBS, 0)} us per fire`,
  );
  printResult('schedules', {
    jobs: JOBS,
    minutes: MINUTES,
    fire_time: {
      ...fire,
      goal_p99_ms: GOAL_P99_MS,
      goal_met: fire.p99_ms <= GOAL_P99_MS && missed === 0 && doubled === 0,
    },
    cpu_pct: cpu,
    batches: hops,
    baseline_bullmq_schedulers: bull,
    baseline_pg_inserts: inserts,
    headline: {
      subject: `${JOBS} schedules: fire p99 ${fire.p99_ms} ms, ${missed} missed, ${doubled} doubled, scheduler CPU ${cpu.scheduler}%`,
      baseline: `bare BullMQ schedulers p99 ${bull.p99_ms} ms; bare PG inserts p99 ${inserts.p99_ms} ms`,
      ratio: `fire p99 / BullMQ p99 ${round(fire.p99_ms / bull.p99_ms, 2)} (goal p99 <= ${GOAL_P99_MS} ms, none missed or doubled)`,
    },
  });
} catch (err) {
  console.error(stack.logs().slice(-4000));
  throw err;
} finally {
  await db.end().catch(() => undefined);
  await stack.stop();
  if (profileDir) printProfiles(profileDir, ROOT);
}
