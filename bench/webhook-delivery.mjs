// Webhook delivery: the dispatcher (its Nest app in this process, on a throwaway schema and Redis prefix, as a
// replica runs it) against a receiver in a child process. Two figures, each with a baseline in this script:
//   - event -> first attempt latency p50: an event added to events.webhooks until its signed POST reaches the
//     receiver, one at a time; baseline: one signed POST from a plain loop.
//   - deliveries/s: a burst of events fanned out to several webhooks until the last POST arrives; baseline: the
//     same number of signed POSTs from a loop with the dispatcher's concurrency.
// The burst also prints the CPU each process used (the bench process is the dispatcher); `--profile` samples the
// dispatcher's CPU during the burst (in process, with the inspector) and prints where it went.
import 'reflect-metadata';
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NestFactory } from '@nestjs/core';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { QUEUES } from '@conduit/contracts';
import { newId, migrate } from '@conduit/service-kit';
import { createLogger } from '@conduit/service-kit';
import { SecretBox, sealFieldsForTransit } from '@conduit/secrets';
import {
  AppModule,
  bullPrefix,
  createDispatcherDataSource,
  dispatcherSettings,
  WebhooksService,
} from '@conduit/webhook-dispatcher';
import { printResult, quantile, round } from './lib/report.mjs';
import { startCpuWindow } from './lib/cpu-usage.mjs';
import { summarizeProfile } from './lib/cpu-profile-summary.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LATENCY_EVENTS = 300;
const BURST_EVENTS = 1000;
const BURST_WEBHOOKS = 5;
const CONCURRENCY = 100;
const GOAL_P50_MS = 20;
const GOAL_PER_SEC = 2000;
const SECRET = 'bench-secret-0123456789abcdef';
const now = () => performance.timeOrigin + performance.now();
const profiling = process.argv.includes('--profile');
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Samples this process's CPU until the returned function is called; that one prints where the time went. */
async function startProfile() {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    const file = join(tmpdir(), `webhook-dispatcher-${process.pid}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    const { top, byPackage } = summarizeProfile(file, ROOT, 25);
    console.log('\n--- dispatcher (bench process) during the burst: self time by package');
    for (const p of byPackage.slice(0, 14)) console.log(`${String(p.pct).padStart(6)}%  ${p.name}`);
    console.log('--- top functions by self time');
    for (const f of top) console.log(`${String(f.pct).padStart(6)}%  ${f.name}`);
    console.log(`profile kept in ${file} (open it in Chrome DevTools > Performance)\n`);
  };
}

/** The receiver child, and a way to wait until given webhook-ids have arrived (answers their arrival times). */
async function startReceiver() {
  const child = fork(join(HERE, 'lib/webhook-receiver.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const arrived = new Map();
  const waiters = new Set();
  const port = await new Promise((ok, fail) => {
    child.once('exit', (code) => fail(new Error(`receiver exited with ${code}`)));
    child.on('message', (msg) => {
      if (msg.port) return ok(msg.port);
      for (const [id, at] of msg.arrivals) if (!arrived.has(id)) arrived.set(id, at);
      for (const w of waiters) w();
    });
  });
  const waitFor = (count, prefixCheck, timeoutMs = 120_000) =>
    new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`only ${arrived.size} deliveries arrived`)), timeoutMs);
      const check = () => {
        if (prefixCheck() >= count) {
          clearTimeout(timer);
          waiters.delete(check);
          ok();
        }
      };
      waiters.add(check);
      check();
    });
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    pid: child.pid,
    arrived,
    waitFor,
    stop: () => child.kill('SIGTERM'),
  };
}

function runEvent(tenantId) {
  const at = new Date().toISOString();
  return {
    event_id: newId('event'),
    type: 'run.succeeded',
    created_at: at,
    tenant_id: tenantId,
    run: {
      id: newId('run'),
      job_id: newId('job'),
      pipeline_id: newId('pipeline'),
      pipeline_version: 1,
      status: 'succeeded',
      trigger: 'manual',
      attempt: 1,
      queued_at: at,
      started_at: at,
      finished_at: at,
      duration_ms: 1200,
      error: null,
      stats: { rows_read: 1, rows_written: 1 },
    },
  };
}

/** The baseline: a signed POST from a plain loop, with a keep-alive agent. */
function signedPost(agent, port, signer) {
  const id = newId('event');
  const body = JSON.stringify({
    id,
    type: 'job.completed',
    created_at: new Date().toISOString(),
    data: { job_id: 'job_x' },
  });
  const at = new Date();
  const headers = {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signer.sign(id, at, body),
  };
  return new Promise((ok, fail) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/baseline', method: 'POST', agent, headers }, (res) => {
      res.resume();
      res.on('end', ok);
    });
    req.on('error', fail);
    req.end(body);
  });
}

const schema = `webhooks_bench_${randomUUID().replace(/-/g, '')}`;
const prefix = `bench:webhooks:${randomUUID()}:`;
const receiver = await startReceiver();
const ds = createDispatcherDataSource({ url: DATABASE_URL, schema, poolSize: 20 });
await migrate(ds);
const secretsKey = randomBytes(32);
const settings = dispatcherSettings({
  redisUrl: REDIS_URL,
  redisPrefix: prefix,
  secretsKey,
  allowHttp: true,
  allowPrivateNetworks: true,
  deliveryConcurrency: CONCURRENCY,
});
const app = await NestFactory.createApplicationContext(
  AppModule.forRoot({ database: ds, logger: createLogger({ service: 'bench', level: 'silent' }), settings }),
  { logger: false },
);
await app.init();
const events = new Queue(QUEUES.eventsWebhooks, { connection: { url: REDIS_URL }, prefix: bullPrefix(prefix) });

try {
  const service = app.get(WebhooksService);
  // The secret crosses to the dispatcher sealed for the tenant, as the gateway sends it.
  const box = new SecretBox(secretsKey);
  const webhooks = {
    create: (tenant, body) => service.create(tenant, sealFieldsForTransit(box, body, ['secret'], tenant, 'webhook')),
  };
  // Latency: one webhook, one event at a time.
  const solo = `tnt_bench_${randomUUID()}`;
  await webhooks.create(solo, { url: receiver.url, events: ['job.completed'], secret: SECRET });
  const latencies = [];
  for (let i = 0; i < LATENCY_EVENTS; i++) {
    const event = runEvent(solo);
    const sent = now();
    await events.add(event.type, event, { jobId: event.event_id, removeOnComplete: true });
    await receiver.waitFor(1, () => (receiver.arrived.has(event.event_id) ? 1 : 0));
    if (i >= 20) latencies.push(receiver.arrived.get(event.event_id) - sent); // the first ones warm up
  }
  latencies.sort((a, b) => a - b);
  const p50 = round(quantile(latencies, 0.5), 2);
  const p99 = round(quantile(latencies, 0.99), 2);

  // Baseline latency: one signed POST at a time.
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const signer = new Webhook(Buffer.from(SECRET).toString('base64'));
  const baseLatencies = [];
  for (let i = 0; i < LATENCY_EVENTS; i++) {
    const t = now();
    await signedPost(agent, receiver.port, signer);
    if (i >= 20) baseLatencies.push(now() - t);
  }
  baseLatencies.sort((a, b) => a - b);
  const baseP50 = round(quantile(baseLatencies, 0.5), 3);

  // Throughput: a burst fanned out to several webhooks of one tenant.
  const burst = `tnt_bench_${randomUUID()}`;
  for (let i = 0; i < BURST_WEBHOOKS; i++)
    await webhooks.create(burst, { url: `${receiver.url}?w=${i}`, events: ['job.completed'], secret: SECRET });
  const before = receiver.arrived.size;
  const total = BURST_EVENTS * BURST_WEBHOOKS;
  const stopProfile = profiling ? await startProfile() : null;
  const cpuWindow = startCpuWindow({ dispatcher: [process.pid], receiver: [receiver.pid] });
  const started = now();
  const burstEvents = Array.from({ length: BURST_EVENTS }, () => runEvent(burst));
  await events.addBulk(
    burstEvents.map((e) => ({ name: e.type, data: e, opts: { jobId: e.event_id, removeOnComplete: true } })),
  );
  const queuedMs = now() - started;
  // Each event id arrives once per webhook; count the attempts recorded as succeeded instead of distinct ids.
  await new Promise((ok, fail) => {
    const deadline = Date.now() + 180_000;
    const poll = async () => {
      const [{ n }] = await ds.query(
        `SELECT count(*)::int AS n FROM deliveries WHERE tenant_id = $1 AND status = 'succeeded'`,
        [burst],
      );
      if (n >= total) return ok();
      if (Date.now() > deadline) return fail(new Error(`only ${n} of ${total} deliveries succeeded`));
      setTimeout(poll, 20);
    };
    void poll();
  });
  const burstSeconds = (now() - started) / 1000;
  const burstCpu = cpuWindow();
  await stopProfile?.();
  // Hop by hop, from the delivery records: when each attempt was written (planned) and when its POST ended
  // (finished_at is taken as the answer arrives, before the batched write), from the burst's start.
  const [hops] = await ds.query(
    `SELECT percentile_cont(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY extract(epoch FROM created_at) * 1000 - $2) AS planned,
            percentile_cont(ARRAY[0.5, 1]) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - created_at) * 1000) AS sent_after,
            percentile_cont(ARRAY[0.5, 1]) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at) * 1000 - $2) AS sent,
            count(*) FILTER (WHERE claimed_at > created_at)::int AS queued_path
       FROM deliveries WHERE tenant_id = $1`,
    [burst, started],
  );
  const ms = (pair) => pair.map((v) => round(v, 0)).join(' / ');
  const hopsLine = `events queued (one addBulk) at ${round(queuedMs, 0)} ms, attempts written at ${ms(hops.planned)} ms (first / p50 / last), POST answered ${ms(hops.sent_after)} ms after its write, at ${ms(hops.sent)} ms; ${hops.queued_path} took the queued path; all recorded at ${round(burstSeconds * 1000, 0)} ms`;
  const perSec = round(total / burstSeconds, 0);
  void before;

  // Baseline throughput: the same number of signed POSTs, CONCURRENCY at a time.
  const baseCpuWindow = startCpuWindow({ loop: [process.pid], receiver: [receiver.pid] });
  const baseStarted = now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < total) await signedPost(agent, receiver.port, signer);
    }),
  );
  const basePerSec = round(total / ((now() - baseStarted) / 1000), 0);
  const baseCpu = baseCpuWindow();
  agent.destroy();

  console.log(
    `event -> first attempt: p50 ${p50} ms, p99 ${p99} ms (goal p50 <= ${GOAL_P50_MS} ms); baseline signed POST p50 ${baseP50} ms`,
  );
  console.log(
    `deliveries: ${perSec}/s over ${total} (goal >= ${GOAL_PER_SEC}/s); baseline signed POST loop ${basePerSec}/s; ratio ${round((perSec / basePerSec) * 100, 1)}%`,
  );
  const cpuLine = (cpu) =>
    Object.entries(cpu)
      .map(([who, pct]) => `${who} ${pct}%`)
      .join(', ');
  const perDelivery = (cpu) =>
    Object.fromEntries(Object.entries(cpu).map(([who, pct]) => [who, round(((pct / 100) * 1e6) / perSec, 0)]));
  console.log(
    `CPU during the burst (% of one core): ${cpuLine(burstCpu)}; us per delivery: ${cpuLine(perDelivery(burstCpu)).replace(/%/g, '')}`,
  );
  console.log(`burst hops: ${hopsLine}`);
  console.log(`CPU during the baseline loop:         ${cpuLine(baseCpu)}`);
  printResult('webhook-delivery', {
    latency: {
      events: latencies.length,
      p50_ms: p50,
      p99_ms: p99,
      baseline_post_p50_ms: baseP50,
      ratio: round(p50 / baseP50, 1),
      goal_p50_ms: GOAL_P50_MS,
      goal_met: p50 <= GOAL_P50_MS,
    },
    throughput: {
      deliveries: total,
      webhooks: BURST_WEBHOOKS,
      concurrency: CONCURRENCY,
      per_sec: perSec,
      baseline_per_sec: basePerSec,
      ratio_pct: round((perSec / basePerSec) * 100, 1),
      goal_per_sec: GOAL_PER_SEC,
      goal_met: perSec >= GOAL_PER_SEC,
      cpu_pct: burstCpu,
      baseline_cpu_pct: baseCpu,
    },
    headline: {
      subject: `webhook p50 ${p50} ms, ${perSec} deliveries/s`,
      baseline: `signed POST loop p50 ${baseP50} ms, ${basePerSec}/s`,
      ratio: `${round((perSec / basePerSec) * 100, 1)}% of baseline throughput (goals: p50 <= ${GOAL_P50_MS} ms, >= ${GOAL_PER_SEC}/s)`,
    },
  });
} finally {
  await events.close();
  await app.close();
  const cleanup = createDispatcherDataSource({ url: DATABASE_URL, schema: 'public', poolSize: 1 });
  await cleanup.initialize();
  await cleanup.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await cleanup.destroy();
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = nextCursor;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
  receiver.stop();
}
