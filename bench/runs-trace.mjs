// Where one run's time goes, from its trace (issue 18: "hop by hop"). Every service of the stack exports its spans
// as production would (OTLP/HTTP, the tracing docs/operations.md describes) to a receiver in this process; 1-node
// runs (`select 1` on a postgres connector) are triggered one at a time and each is one trace, from the gateway's
// request to the scheduler applying the final report. Printed, p50 over the runs:
// - the trace's spans in the order they start (the first of each name; database and Redis calls summed apart),
// - how much of the span from Trigger Run to the run's start, and to the final report applied, is spent inside a
//   PostgreSQL or Redis call of some service (the client spans of the pg and ioredis instrumentations: the round
//   trip, the server's work and the commit), and how much is left to the services' own code, queue waits and the
//   kernel between them.
// Tracing costs time of its own (a span per call): the figures say where time goes, the other benches how much. A
// span's start is anchored to its process's millisecond clock (the OpenTelemetry SDK's), so starts across services
// compare to about a millisecond; lengths are exact.
// Baseline: a bare BullMQ add -> worker start, as runs-scheduling.mjs prints it. BENCH_TRACE_DUMP=<file> also writes
// every span received there (JSON), to read one trace whole. BENCH_TRACE_IN_FLIGHT=8 triggers the runs 8 at a time
// instead, as runs-scheduling.mjs's runs/s load does: where a run's time, and its 202's, go under that load.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Queue, Worker } from 'bullmq';
import { startBenchStack } from './lib/bench-stack.mjs';
import { createBenchDatabase } from './lib/bench-database.mjs';
import { printResult, quantile, round } from './lib/report.mjs';
import { jobFor, stackConnector, trigger, waitSucceeded } from './lib/runs-api.mjs';

const RUNS = Number(process.env.BENCH_TRACE_RUNS ?? 40);
const IN_FLIGHT = Number(process.env.BENCH_TRACE_IN_FLIGHT ?? 1);
const WARMUP = 5;

/** Collects the spans the services export (OTLP/HTTP with JSON bodies, what exporter-trace-otlp-http sends). */
function otlpReceiver() {
  const spans = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        for (const rs of JSON.parse(Buffer.concat(chunks).toString()).resourceSpans ?? []) {
          const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value?.stringValue;
          for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spans.push(spanOf(service, s));
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ spans, port: server.address().port, close: () => server.close() })),
  );
}

function spanOf(service, s) {
  const attrs = Object.fromEntries((s.attributes ?? []).map((a) => [a.key, Object.values(a.value ?? {})[0]]));
  return {
    service,
    name: s.name,
    traceId: s.traceId,
    start: Number(BigInt(s.startTimeUnixNano) / 1000n) / 1000,
    end: Number(BigInt(s.endTimeUnixNano) / 1000n) / 1000,
    /** `pg` or `redis` for a client call of the pg or ioredis instrumentation. */
    store: attrs['db.system.name'] ?? attrs['db.system'],
    attrs,
  };
}

/** Milliseconds of [from, to] covered by at least one of the intervals. */
function covered(intervals, from, to) {
  const clipped = intervals
    .map(([a, b]) => [Math.max(a, from), Math.min(b, to)])
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let total = 0;
  let [curA, curB] = [Number.NaN, Number.NaN];
  for (const [a, b] of clipped) {
    if (!(a <= curB)) {
      if (curB > curA) total += curB - curA;
      [curA, curB] = [a, b];
    } else curB = Math.max(curB, b);
  }
  if (curB > curA) total += curB - curA;
  return total;
}

/** One run's trace, read as hops: milestones, calls, and the share of each stretch spent in PostgreSQL and Redis. */
function readTrace(spans) {
  const root = spans.reduce((a, b) => (b.start < a.start ? b : a));
  const at = (t) => t - root.start;
  const claim = spans.find((s) => s.service === 'scheduler' && s.name === 'rpc scheduler.runs.claim');
  const applied = spans.filter((s) => s.service === 'scheduler' && s.name.startsWith('job events.scheduler/'));
  const finished = applied.find((s) => s.name.endsWith('/run.finished'));
  if (!claim || !finished) return undefined;
  const calls = (store) => spans.filter((s) => s.store === store).map((s) => [s.start, s.end]);
  const stretch = (to) => {
    const total = to - root.start;
    const pg = covered(calls('postgresql'), root.start, to);
    const redis = covered(calls('redis'), root.start, to);
    const either = covered([...calls('postgresql'), ...calls('redis')], root.start, to);
    return { total, pg, redis, elsewhere: total - either };
  };
  const first = new Map();
  const stores = new Map();
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    if (s.store) {
      const key = `${s.service}: ${s.store === 'postgresql' ? 'PostgreSQL' : 'Redis'} calls`;
      const acc = stores.get(key) ?? { n: 0, ms: 0 };
      stores.set(key, { n: acc.n + 1, ms: acc.ms + (s.end - s.start) });
      continue;
    }
    const key = `${s.service}: ${s.name.replace(/(run|node) [\w-]+/, '$1 <id>')}`;
    if (!first.has(key)) first.set(key, { start: at(s.start), ms: s.end - s.start });
  }
  return {
    toAccepted: stretch(root.end),
    toRunning: stretch(claim.start),
    toApplied: stretch(finished.end),
    first,
    stores,
  };
}

/** A bare BullMQ job's add -> its worker's start, p50 over 100 (the floor of the queue hop a run takes). */
async function bullmqPickup(stack) {
  const connection = { url: stack.env.REDIS_URL };
  const name = `bench-trace-${process.pid}`;
  const queue = new Queue(name, { connection });
  const started = new Map();
  const worker = new Worker(name, async (job) => started.set(job.id, performance.now()), { connection });
  await worker.waitUntilReady();
  const times = [];
  for (let i = 0; i < 100; i++) {
    const sent = performance.now();
    const job = await queue.add('j', {}, { removeOnComplete: true });
    while (!started.has(job.id)) await new Promise((r) => setImmediate(r));
    times.push(started.get(job.id) - sent);
  }
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return quantile(
    times.sort((a, b) => a - b),
    0.5,
  );
}

const p50 = (values) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

const receiver = await otlpReceiver();
const stack = await startBenchStack({
  RATE_LIMIT_PER_MINUTE: '1000000',
  CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true',
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
  OTEL_BSP_SCHEDULE_DELAY: '200',
  OTEL_BSP_MAX_QUEUE_SIZE: '65536',
});
let database;
const runIds = [];
let pickupMs;
try {
  database = await createBenchDatabase();
  const connectorId = await stackConnector(stack, database.name);
  const jobId = await jobFor(stack, {
    nodes: [{ id: 'one', type: 'sql', config: { connector_id: connectorId, sql: 'select 1' } }],
    edges: [],
  });
  for (let i = 0; i < WARMUP + (IN_FLIGHT > 1 ? 0 : RUNS); i++) {
    const { id } = await trigger(stack, jobId);
    await waitSucceeded(stack, jobId, id, { everyMs: 10 });
    if (i >= WARMUP) runIds.push(id);
  }
  if (IN_FLIGHT > 1) {
    let left = RUNS;
    const triggerer = async () => {
      while (left-- > 0) runIds.push((await trigger(stack, jobId)).id);
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, triggerer));
    for (const id of runIds) await waitSucceeded(stack, jobId, id, { everyMs: 20 });
  }
  pickupMs = await bullmqPickup(stack);
} finally {
  // SIGTERM flushes every service's spans (the SDK's shutdown) before the receiver stops.
  await stack.stop();
  receiver.close();
  await database?.drop();
}

if (process.env.BENCH_TRACE_DUMP) writeFileSync(process.env.BENCH_TRACE_DUMP, JSON.stringify(receiver.spans));
const byTrace = new Map();
for (const s of receiver.spans) {
  const list = byTrace.get(s.traceId);
  if (list) list.push(s);
  else byTrace.set(s.traceId, [s]);
}
const traces = runIds
  .map((id) => [...byTrace.values()].find((spans) => spans.some((s) => s.attrs['conduit.run.id'] === id)))
  .filter(Boolean)
  .map(readTrace)
  .filter(Boolean);
if (traces.length === 0) throw new Error(`no run trace came in (${receiver.spans.length} spans received)`);

const pace = IN_FLIGHT > 1 ? `${IN_FLIGHT} triggers at a time (the runs/s load)` : 'one at a time';
console.log(`${traces.length} 1-node runs (sql \`select 1\`), ${pace}, each one trace; p50 over the runs, ms`);
console.log('\nspans in the order they start (the first of each name), start after Trigger Run was received, length:');
const keys = [...new Set(traces.flatMap((t) => [...t.first.keys()]))]
  .map((key) => ({ key, runs: traces.filter((t) => t.first.has(key)) }))
  .filter(({ runs }) => runs.length >= traces.length / 2)
  .map(({ key, runs }) => ({
    key,
    start: p50(runs.map((t) => t.first.get(key).start)),
    ms: p50(runs.map((t) => t.first.get(key).ms)),
  }))
  .sort((a, b) => a.start - b.start);
for (const { key, start, ms } of keys)
  console.log(`  ${start.toFixed(1).padStart(6)}  ${ms.toFixed(2).padStart(7)}  ${key}`);
console.log('\ndatabase and Redis calls per run (count, summed length):');
const storeKeys = [...new Set(traces.flatMap((t) => [...t.stores.keys()]))].sort();
for (const key of storeKeys) {
  const n = p50(traces.map((t) => t.stores.get(key)?.n ?? 0));
  const ms = p50(traces.map((t) => t.stores.get(key)?.ms ?? 0));
  console.log(`  ${String(n).padStart(4)}  ${ms.toFixed(2).padStart(7)}  ${key}`);
}
const share = (pick) => ({
  total_ms: round(p50(traces.map((t) => pick(t).total)), 2),
  in_postgres_ms: round(p50(traces.map((t) => pick(t).pg)), 2),
  in_redis_ms: round(p50(traces.map((t) => pick(t).redis)), 2),
  elsewhere_ms: round(p50(traces.map((t) => pick(t).elsewhere)), 2),
});
const toAccepted = share((t) => t.toAccepted);
const toRunning = share((t) => t.toRunning);
const toApplied = share((t) => t.toApplied);
const line = (what, s) =>
  console.log(
    `${what}: ${s.total_ms} ms; inside PostgreSQL calls ${s.in_postgres_ms}, inside Redis calls ${s.in_redis_ms}, in neither ${s.elsewhere_ms} (the services' own code, queue waits, the kernel)`,
  );
console.log('');
line('Trigger Run received -> its 202 sent', toAccepted);
line('Trigger Run received -> the claim (the run starts)', toRunning);
line('Trigger Run received -> final report applied', toApplied);
console.log(`baseline: a bare BullMQ add -> worker start p50 ${round(pickupMs, 2)} ms`);

printResult('runs-trace', {
  runs: traces.length,
  in_flight: IN_FLIGHT,
  to_accepted: toAccepted,
  to_running: toRunning,
  to_final_report_applied: toApplied,
  baseline: { name: 'bullmq_add_to_pickup_p50_ms', value: round(pickupMs, 2) },
  headline: {
    subject: `trigger -> claim p50 ${toRunning.total_ms} ms (${toRunning.elsewhere_ms} outside PostgreSQL and Redis calls)`,
    baseline: `bare BullMQ pickup p50 ${round(pickupMs, 2)} ms`,
    ratio: `${round(toRunning.total_ms / pickupMs, 1)}x baseline (traced; see runs-scheduling for the goal)`,
  },
});
