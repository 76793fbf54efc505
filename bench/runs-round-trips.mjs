// What one 1-node run asks of PostgreSQL and Redis (issue 18, "hop by hop"): the statements each server ran and the
// commands the services sent, per run, counted on a PostgreSQL and a Redis of the bench's own (initdb and
// redis-server in a temporary folder), so nothing else on the machine is counted and the counters may be reset:
// - PostgreSQL: pg_stat_statements (preloaded on the bench's two servers: the platform's, and the source's, apart since
//   connectors may never reach the platform's own server), by database: the platform's own and the
//   source's (the connector's session: snapshot, column types, COPY, its reset);
// - Redis: the commands a client sent (MONITOR, less the commands a script ran itself; the commands of one pipeline
//   count one each), by command and by queue or RPC stream, and INFO commandstats for every command run, scripts'
//   own included.
// Each message costs CPU on both sides of its socket (on this machine, writes to a loopback socket are 13-36% of a
// service's CPU under load: bench/README.md), so these counts say where runs-cpu.mjs's figures come from.
// Baseline: a bare BullMQ job (add -> worker -> completed) counted the same way on the same Redis: a run sends so
// many bare jobs' worth of Redis commands.
import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startOwnPostgres, startOwnRedis } from '@conduit/testing';
import { startBenchStack } from './lib/bench-stack.mjs';
import { createBenchDatabase } from './lib/bench-database.mjs';
import { printResult, round } from './lib/report.mjs';
import { drained, jobFor, stackConnector, triggerMany } from './lib/runs-api.mjs';

const RUNS = Number(process.env.BENCH_ROUND_TRIP_RUNS ?? 200);
const IN_FLIGHT = 8;
const BARE_JOBS = 200;
/** The most statements printed (those with the most calls per run). */
const TOP_STATEMENTS = 14;

/** A stream or queue key's short name: `<prefix>:bull:runs:events` -> `runs`, `<prefix>:rpc:catalog` -> `rpc:catalog`. */
function keyGroup(key) {
  const bull = /:bull:([^:]+)/.exec(key);
  if (bull) return bull[1];
  const rpc = /:(rpc:[^:]+)/.exec(key);
  return rpc ? rpc[1] : '(other)';
}

/** Counts the commands clients send to `redisUrl` (not those a script runs) until stop(). */
async function countClientCommands(redisUrl) {
  const byCommand = new Map();
  const byGroup = new Map();
  const add = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);
  const client = new Redis(redisUrl);
  const monitor = await client.monitor();
  monitor.on('monitor', (_time, args, source) => {
    if (source === 'lua') return;
    const command = String(args[0]).toLowerCase();
    add(byCommand, command);
    // Scripts name their keys after the key count; plain stream and list commands name theirs first.
    const keys = command === 'evalsha' || command === 'eval' ? args.slice(3, 3 + Number(args[2])) : args.slice(1, 2);
    const key = keys.find((k) => /:(bull|rpc):/.test(String(k)));
    if (key) add(byGroup, keyGroup(String(key)));
  });
  return {
    async stop() {
      monitor.disconnect();
      client.disconnect();
      return { byCommand, byGroup, total: [...byCommand.values()].reduce((s, n) => s + n, 0) };
    },
  };
}

/** Every command Redis ran (scripts' own included), from INFO commandstats. */
async function commandStats(redis) {
  const info = await redis.info('commandstats');
  let total = 0;
  for (const match of info.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) total += Number(match[1]);
  return total;
}

/** Commands sent by clients and commands run for `count` bare BullMQ jobs, `IN_FLIGHT` added at a time. */
async function bareBullmqJobs(redisUrl, count) {
  const connection = { url: redisUrl, maxRetriesPerRequest: null };
  const prefix = `bench-bare-${randomUUID().slice(0, 8)}`;
  const queue = new Queue('bare', { connection, prefix });
  let done = 0;
  let finished;
  const allDone = new Promise((resolve) => (finished = resolve));
  const worker = new Worker('bare', async () => undefined, { connection, prefix, concurrency: IN_FLIGHT });
  worker.on('completed', () => ++done === count && finished());
  await worker.waitUntilReady();
  await queue.waitUntilReady();
  const admin = new Redis(redisUrl);
  await admin.config('RESETSTAT');
  const counting = await countClientCommands(redisUrl);
  for (let i = 0; i < count; i += IN_FLIGHT)
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, count - i) }, () => queue.add('job', { n: i })));
  await allDone;
  const counted = await counting.stop();
  const run = await commandStats(admin);
  await worker.close();
  await queue.close();
  admin.disconnect();
  return { commands_sent: round(counted.total / count, 2), commands_run: round(run / count, 1) };
}

// track_planning: each statement's planning time apart from its execution (an unnamed statement is planned at every
// call, a named one once per connection).
const STATS = { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track_planning': 'on' };
// Two servers: the platform's, and the source's (connectors may never reach the platform's own server).
const postgres = await startOwnPostgres({ settings: STATS });
const dataServer = await startOwnPostgres({ settings: STATS });
const redisServer = await startOwnRedis();
let stack;
let database;
let figures;
try {
  stack = await startBenchStack(
    { RATE_LIMIT_PER_MINUTE: '1000000', CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' },
    { pgAdminUrl: postgres.adminUrl, redisUrl: redisServer.url },
  );
  database = await createBenchDatabase(dataServer.adminUrl);
  const connectorId = await stackConnector(stack, database.name, dataServer.adminUrl);
  const jobId = await jobFor(stack, {
    nodes: [{ id: 'one', type: 'source', config: { connector_id: connectorId, query: 'select 1 as n' } }],
    edges: [],
  });
  // Warm: every executor slot's DuckDB open, every pool connected, every cache filled.
  await triggerMany(stack, jobId, 40, IN_FLIGHT);
  await drained(stack, jobId);

  const admin = new pg.Client({ connectionString: postgres.adminUrl });
  await admin.connect();
  const dataAdmin = new pg.Client({ connectionString: dataServer.adminUrl });
  await dataAdmin.connect();
  const redis = new Redis(redisServer.url);
  try {
    for (const server of [admin, dataAdmin]) {
      await server.query('create extension if not exists pg_stat_statements');
      await server.query('select pg_stat_statements_reset()');
    }
    await redis.config('RESETSTAT');
    const counting = await countClientCommands(redisServer.url);
    await triggerMany(stack, jobId, RUNS, IN_FLIGHT);
    // Polled once a second: the polls' own statements and commands are a few per burst, under 1% of the counts.
    await drained(stack, jobId, 120_000, 1000);
    const redisCounted = await counting.stop();
    const commandsRun = await commandStats(redis);
    // pg_stat_statements counts a statement when it ends: every run's are in once the runs are drained.
    const statsSql = `select d.datname as database, s.calls::int as calls, s.plans::int as plans, s.total_plan_time as plan_ms,
              s.total_exec_time as exec_ms, regexp_replace(s.query, '\\s+', ' ', 'g') as query
         from pg_stat_statements s join pg_database d on d.oid = s.dbid
        where d.datname <> 'postgres' order by s.calls desc`;
    const rows = [...(await admin.query(statsSql)).rows, ...(await dataAdmin.query(statsSql)).rows].sort(
      (x, y) => y.calls - x.calls,
    );
    figures = { rows, redisCounted, commandsRun, sourceDatabase: database.name };
  } finally {
    await admin.end();
    await dataAdmin.end();
    redis.disconnect();
  }
} catch (err) {
  console.error(stack?.logs().slice(-4000));
  throw err;
} finally {
  await stack?.stop();
  await database?.drop();
}
const bare = await bareBullmqJobs(redisServer.url, BARE_JOBS);
await redisServer.destroy();
await postgres.destroy();
await dataServer.destroy();

const perRun = (n) => round(n / RUNS, 2);
const { rows, redisCounted, commandsRun, sourceDatabase } = figures;
/** Each statement per run, by the database it ran in: the source's (the connector's session) or the platform's. */
const statements = rows.map((r) => ({
  calls: r.calls,
  per_run: perRun(r.calls),
  database: r.database === sourceDatabase ? 'source' : 'platform',
  // Server time per run: planning (when planned at that call) and execution.
  plan_ms: round(r.plan_ms / RUNS, 3),
  exec_ms: round(r.exec_ms / RUNS, 3),
  planned_per_call: r.calls ? round(r.plans / r.calls, 2) : 0,
  query: r.query,
}));
const serverMs = (st) => st.plan_ms + st.exec_ms;
const byServerTime = [...statements].sort((a, b) => serverMs(b) - serverMs(a));
const sumOf = (key) =>
  round(
    statements.reduce((s, st) => s + st[key], 0),
    2,
  );
const callsIn = (database) => statements.reduce((s, st) => s + (st.database === database ? st.calls : 0), 0);
const pgFigures = { platform: perRun(callsIn('platform')), source: perRun(callsIn('source')) };
const pgTotal = round(pgFigures.platform + pgFigures.source, 1);
const ranked = (map) => Object.fromEntries([...map].sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, perRun(n)]));
const redisFigures = {
  commands_sent: perRun(redisCounted.total),
  scripts: perRun((redisCounted.byCommand.get('evalsha') ?? 0) + (redisCounted.byCommand.get('eval') ?? 0)),
  commands_run: perRun(commandsRun),
  by_command: ranked(redisCounted.byCommand),
  by_queue_or_stream: ranked(redisCounted.byGroup),
};
const bareJobs = round(redisFigures.commands_sent / bare.commands_sent, 1);
const listed = (perKey, limit) =>
  Object.entries(perKey)
    .slice(0, limit)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');

console.log(
  `per 1-node run (${RUNS} runs, ${IN_FLIGHT} triggers in flight), on a PostgreSQL and a Redis of the bench's own:`,
);
console.log(
  `PostgreSQL statements: ${pgTotal} (the platform's database ${pgFigures.platform}, the source's ${pgFigures.source})`,
);
for (const st of statements.slice(0, TOP_STATEMENTS))
  console.log(`  ${String(st.per_run).padStart(5)}  ${st.database.padEnd(8)}  ${st.query.slice(0, 100)}`);
console.log(
  `PostgreSQL server time: planning ${sumOf('plan_ms')} ms, execution ${sumOf('exec_ms')} ms a run; the most (ms a run, planned per call):`,
);
for (const st of byServerTime.slice(0, TOP_STATEMENTS))
  console.log(
    `  plan ${st.plan_ms.toFixed(3)} exec ${st.exec_ms.toFixed(3)} (${st.planned_per_call})  ${st.database.padEnd(8)}  ${st.query.slice(0, 90)}`,
  );
console.log(
  `Redis: ${redisFigures.commands_sent} commands sent (of them ${redisFigures.scripts} BullMQ scripts), ${redisFigures.commands_run} commands run with the scripts' own`,
);
console.log(`  by command: ${listed(redisFigures.by_command, 10)}`);
console.log(`  by queue or RPC stream: ${listed(redisFigures.by_queue_or_stream)}`);
console.log(
  `baseline: a bare BullMQ job (add -> worker -> completed) ${bare.commands_sent} commands sent, ${bare.commands_run} commands run; a run sends ${bareJobs} bare jobs' worth`,
);

printResult('runs-round-trips', {
  runs: RUNS,
  in_flight: IN_FLIGHT,
  postgres_statements_per_run: pgFigures,
  postgres_server_ms_per_run: { planning: sumOf('plan_ms'), execution: sumOf('exec_ms') },
  top_statements: statements.slice(0, TOP_STATEMENTS).map((st) => ({ ...st, query: st.query.slice(0, 160) })),
  redis_per_run: redisFigures,
  baseline: { name: 'bare_bullmq_job', ...bare },
  headline: {
    subject: `per 1-node run ${pgTotal} PostgreSQL statements, ${redisFigures.commands_sent} Redis commands sent`,
    baseline: `bare BullMQ job ${bare.commands_sent} Redis commands sent`,
    ratio: `${bareJobs}x a bare job's commands`,
  },
});
