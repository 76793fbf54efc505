// Round-trip latency and throughput of the transport: client here, one or two replicas as processes.
// Run after a build: node packages/rpc-streams/bench/rpc-latency.mjs [requests=5000] [replicas=1]
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { RedisStreamsClient, rpcCall } from '../dist/index.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const requests = Number(process.argv[2] ?? 5000);
const replicaCount = Number(process.argv[3] ?? 1);
const prefix = `bench:rpc-streams:${randomUUID()}:`;
const fixture = fileURLToPath(new URL('../test/fixtures/replica.mjs', import.meta.url));

function startReplica(name) {
  const child = fork(fixture, [], { env: { ...process.env, REDIS_URL: url, PREFIX: prefix, REPLICA: name } });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`replica exited with ${code}`)));
  });
}

function summary(label, latencies, elapsedMs) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(2);
  const rate = Math.round((latencies.length / elapsedMs) * 1000);
  console.log(`${label.padEnd(28)} p50 ${at(0.5)} ms  p99 ${at(0.99)} ms  max ${at(1)} ms  ${rate} req/s`);
}

async function timed(client, payload) {
  const started = performance.now();
  await rpcCall(client, 'svc.items.echo', payload);
  return performance.now() - started;
}

async function closedLoop(client, inFlight) {
  const latencies = [];
  let next = 0;
  const worker = async () => {
    while (next < requests) latencies.push(await timed(client, { i: next++, name: 'small' }));
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  return [latencies, performance.now() - started];
}

const replicas = await Promise.all(Array.from({ length: replicaCount }, (_, i) => startReplica(`r${i}`)));
const client = new RedisStreamsClient({ url, prefix, timeoutMs: 60_000 });
await client.connect();
try {
  await closedLoop(client, 16); // warm-up: JIT, connections
  console.log(`${requests} small requests, ${replicaCount} replica(s), client and replicas on this machine`);

  let [latencies, elapsed] = await closedLoop(client, 1);
  summary('sequential', latencies, elapsed);
  [latencies, elapsed] = await closedLoop(client, 64);
  summary('64 in flight', latencies, elapsed);

  const started = performance.now();
  latencies = await Promise.all(Array.from({ length: requests }, (_, i) => timed(client, { i, name: 'small' })));
  summary(`all ${requests} at once`, latencies, performance.now() - started);
} finally {
  await client.close();
  await Promise.all(
    replicas.map(
      (replica) =>
        new Promise((resolve) => {
          replica.once('exit', resolve);
          replica.kill('SIGTERM');
        }),
    ),
  );
  const redis = new Redis(url);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
}
