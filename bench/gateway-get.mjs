// Authenticated GET /v2/projects/{id} through the gateway and the catalog (each its own process, on a
// throwaway database and Redis prefix from startStack) against a bare Fastify hello-world in a child
// process: same load tool, connections and duration. The figure is gateway req/s as a % of hello-world's.
//
//   node gateway-get.mjs            the bench
//   node gateway-get.mjs --profile  also CPU-profiles the gateway and the catalog and prints their hotspots
import { mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBenchStack } from './lib/bench-stack.mjs';
import { startChildServer } from './lib/child-server.mjs';
import { startCpuWindow } from './lib/cpu-usage.mjs';
import { printResult, round } from './lib/report.mjs';
import { printProfiles } from './lib/cpu-profile-summary.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..');
const GOAL_PCT = 30; // issue 18, with 64 connections
const profiling = process.argv.includes('--profile');
// Issue 18's figure is taken with 64 connections; lib/load.mjs reads BENCH_CONNECTIONS as it loads, hence the import here.
process.env.BENCH_CONNECTIONS ??= '64';
const { LOAD, measure, warmUp } = await import('./lib/load.mjs');

/** Each process's CPU per request of a measured run, in us, from its % of one core and the run's req/s. */
function cpuPerRequest(run) {
  return Object.fromEntries(
    Object.entries(run.cpu_pct).map(([who, pct]) => [who, Math.round(((pct / 100) * 1e6) / run.req_per_sec)]),
  );
}

/** One JSON call to the stack; throws unless the status is the expected one. */
async function api(stack, method, path, key, body, expected) {
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${res.status}: ${text}`);
  return JSON.parse(text);
}

/** A project to read and a key whose rate limit the run cannot reach. */
async function prepare(stack) {
  const project = await api(
    stack,
    'POST',
    '/v2/projects',
    stack.bootstrapKey,
    { name: 'bench project', description: 'read by gateway-get.mjs' },
    201,
  );
  const created = await api(
    stack,
    'POST',
    '/v2/api-keys',
    stack.bootstrapKey,
    { name: 'bench reader', scopes: ['read', 'write'], rate_limit_per_minute: 1_000_000 },
    201,
  );
  const read = await api(stack, 'GET', `/v2/projects/${project.id}`, created.key, undefined, 200);
  if (read.id !== project.id)
    throw new Error(`GET /v2/projects/${project.id} answered another project: ${JSON.stringify(read)}`);
  return { path: `/v2/projects/${project.id}`, key: created.key };
}

console.log(
  `load: autocannon, ${LOAD.connections} connections, ${LOAD.warmupSec} s warm-up + ${LOAD.durationSec} s measured per target`,
);

const hello = await startChildServer(join(HERE, 'lib/hello-server.mjs'));
let baseline;
try {
  await warmUp(`${hello.url}/`);
  const cpuWindow = startCpuWindow({ server: [hello.pid], load_generator: [process.pid] });
  baseline = await measure('hello-world', `${hello.url}/`);
  baseline.cpu_pct = cpuWindow();
  baseline.cpu_us_per_req = cpuPerRequest(baseline);
} finally {
  await hello.stop();
}
console.log(
  `hello-world (bare Fastify, baseline)   ${baseline.req_per_sec} req/s  p50 ${baseline.p50_ms} ms  p99 ${baseline.p99_ms} ms`,
);

const profileDir = profiling ? mkdtempSync(join(tmpdir(), 'conduit-bench-prof-')) : undefined;
const profileEnv = {
  NODE_OPTIONS: `--import=${join(HERE, 'lib/cpu-profiler-preload.mjs')}`,
  BENCH_PROFILE_DIR: profileDir,
};
// The key's own limit and its tenant's past anything the bench asks: the limiter never answers 429.
const stack = await startBenchStack({
  RATE_LIMIT_MAX_PER_MINUTE: '1000000',
  RATE_LIMIT_TENANT_PER_MINUTE: '1000000',
  ...(profileDir ? profileEnv : {}),
});
let gateway;
try {
  const target = await prepare(stack);
  const url = `${stack.baseUrl}${target.path}`;
  const headers = { 'x-api-key': target.key };
  await warmUp(url, headers);
  const pidsOf = (name) => stack.processes.filter((p) => p.name === name).map((p) => p.child.pid);
  if (profileDir) for (const p of stack.processes) process.kill(p.child.pid, 'SIGWINCH');
  const cpuWindow = startCpuWindow({
    gateway: pidsOf('gateway'),
    catalog: pidsOf('catalog'),
    load_generator: [process.pid],
  });
  gateway = await measure('gateway', url, headers);
  gateway.cpu_pct = cpuWindow();
  gateway.cpu_us_per_req = cpuPerRequest(gateway);
} catch (err) {
  console.error(stack.logs().slice(-4000));
  throw err;
} finally {
  await stack.stop();
}
console.log(
  `GET /v2/projects/{id} via gateway      ${gateway.req_per_sec} req/s  p50 ${gateway.p50_ms} ms  p99 ${gateway.p99_ms} ms`,
);
const cpuLine = (cpu, unit) =>
  Object.entries(cpu)
    .map(([who, value]) => `${who} ${value}${unit}`)
    .join(', ');
console.log(`CPU while measured (% of one core; the machine has ${availableParallelism()}):`);
console.log(`  hello-world run: ${cpuLine(baseline.cpu_pct, '%')}`);
console.log(`  gateway run:     ${cpuLine(gateway.cpu_pct, '%')}`);
console.log('CPU per request (us; what a busy machine disturbs least):');
console.log(`  hello-world run: ${cpuLine(baseline.cpu_us_per_req, '')}`);
console.log(`  gateway run:     ${cpuLine(gateway.cpu_us_per_req, '')}`);

const ratioPct = round((gateway.req_per_sec / baseline.req_per_sec) * 100, 1);
console.log(
  `ratio: gateway throughput is ${ratioPct}% of a bare Fastify hello-world (goal >= ${GOAL_PCT}%: ${ratioPct >= GOAL_PCT ? 'met' : 'NOT met'})`,
);
if (profileDir) printProfiles(profileDir, ROOT);
else if (ratioPct < GOAL_PCT)
  console.log('run `node gateway-get.mjs --profile` to see where the gateway spends its time');

printResult('gateway-get', {
  connections: LOAD.connections,
  duration_sec: LOAD.durationSec,
  gateway,
  baseline: { name: 'fastify_hello_world', ...baseline },
  ratio_pct: ratioPct,
  goal_pct: GOAL_PCT,
  goal_met: ratioPct >= GOAL_PCT,
  profiled: profiling,
  headline: {
    subject: `gateway GET ${gateway.req_per_sec} req/s (p99 ${gateway.p99_ms} ms)`,
    baseline: `hello-world ${baseline.req_per_sec} req/s (p99 ${baseline.p99_ms} ms)`,
    ratio: `${ratioPct}% of baseline (goal >= ${GOAL_PCT}%)`,
  },
});
