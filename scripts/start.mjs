// `npm start`: every service of Conduit as its own Node process against the local Redis, and a PostgreSQL server of the
// platform's own (local-postgres.mjs) beside the machine's, which stays for the data connectors use.
// Each service applies its own migrations at boot. Ctrl-C stops them all.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { SERVICES } from './services.mjs';
import { ROOT, localEnv } from './local-env.mjs';
import { startLocalPostgres, stopLocalPostgres } from './local-postgres.mjs';

const env = localEnv();
let ownPostgres = false;
if (!env.DATABASE_URL) {
  const url = startLocalPostgres(Number(env.LOCAL_POSTGRES_PORT ?? 5433));
  if (url) {
    env.DATABASE_URL = url;
    ownPostgres = true;
  } else {
    process.stderr.write(
      'initdb and pg_ctl are not installed: the platform keeps its database on the PostgreSQL at 127.0.0.1:5432, ' +
        'which connectors may then never reach (docs/security.md); point them at another server, or install ' +
        "PostgreSQL's server tools so that npm start runs one of the platform's own.\n",
    );
  }
}
const children = [];
let stopping = false;

function prefixLines(name, stream, out) {
  let rest = '';
  stream.on('data', (chunk) => {
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) out.write(`[${name}] ${line}\n`);
  });
}

async function waitReady(name, port, child) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${name} exited (${child.signalCode ?? `code ${child.exitCode}`})`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${name} was not ready within 60 s`);
}

/** The executor's libuv pool: a thread per run slot for its DuckDB statements, four more (docs/operations.md). */
function threadPoolOf(name, env) {
  if (name !== 'executor' || env.UV_THREADPOOL_SIZE) return {};
  return { UV_THREADPOOL_SIZE: String(Number(env.EXECUTOR_CONCURRENCY ?? 8) + 4) };
}

function stopAll(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  const exit = () => {
    if (ownPostgres) stopLocalPostgres();
    process.exit(code);
  };
  setTimeout(exit, 10_000).unref();
  Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null))).then(exit);
}

/**
 * Starts one service. An executor that ends on its own is started again, as compose and Kubernetes restart it: it ends
 * itself when a DuckDB statement would not stop (docs/operations.md), its runs ended or back in the queue. Any other
 * service's end stops the stack.
 */
function launch(service, port, restarts = 0) {
  const startedAt = Date.now();
  const child = spawn(process.execPath, [resolve(ROOT, `apps/${service.name}/dist/main.js`)], {
    env: { ...env, ...threadPoolOf(service.name, env), [service.portVar]: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  prefixLines(service.name, child.stdout, process.stdout);
  prefixLines(service.name, child.stderr, process.stderr);
  child.on('exit', (code, signal) => {
    if (stopping) return;
    if (service.name === 'executor') {
      children.splice(children.indexOf(child), 1);
      // One that keeps ending soon after its start waits longer each time (1 s, 2 s, 4 s... 30 s), as Kubernetes would.
      const again = Date.now() - startedAt < 60_000 ? restarts + 1 : 0;
      const delayMs = Math.min(30_000, 1000 * 2 ** Math.max(0, again - 1));
      process.stderr.write(
        `[executor] ended (${signal ?? `code ${code}`}); starting it again in ${delayMs / 1000} s\n`,
      );
      setTimeout(() => {
        if (stopping) return;
        waitReady(service.name, port, launch(service, port, again)).catch((err) => {
          process.stderr.write(`[executor] could not start again: ${err.message}; stopping the stack\n`);
          stopAll(1);
        });
      }, delayMs);
      return;
    }
    process.stderr.write(`[${service.name}] exited with code ${code}; stopping the stack\n`);
    stopAll(1);
  });
  return child;
}

process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

try {
  for (const service of SERVICES) {
    const port = Number(env[service.portVar] ?? service.port);
    await waitReady(service.name, port, launch(service, port));
  }
  const port = env.GATEWAY_PORT ?? 3000;
  const url = `http://localhost:${port}`;
  process.stdout.write(`
Conduit is up.
  API:      ${url}/v2   (OpenAPI: ${url}/v2/openapi.json, Swagger UI: ${url}/docs)
  API key:  ${env.BOOTSTRAP_API_KEY}   (kept in .conduit/local.env)
  Database: ${ownPostgres ? `the platform's own PostgreSQL server, port ${env.LOCAL_POSTGRES_PORT ?? 5433} (.conduit/postgres); connectors use other servers, e.g. yours at 5432` : 'DATABASE_URL as given'}
  Metrics:  http://localhost:${env.GATEWAY_METRICS_PORT ?? 3100}/metrics   (the gateway's; each other service on its port)
  Try:      curl -s -H "X-API-Key: ${env.BOOTSTRAP_API_KEY}" ${url}/v2/projects
Ctrl-C stops every service.
`);
} catch (err) {
  process.stderr.write(`start failed: ${err.message}\n`);
  stopAll(1);
}
