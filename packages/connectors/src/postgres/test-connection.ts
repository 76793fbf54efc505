/** Test Connection for postgres: resolve, connect (TCP), authenticate, read_access; stops at the first failure. */
import { lookup } from 'node:dns/promises';
import { connect as tcpConnect, isIP } from 'node:net';
import type pg from 'pg';
import { runChecks, type CheckStep } from '../connection-checks.js';
import { ConnectorError } from '../connector-error.js';
import type { TestOptions, TestResult } from '../types.js';
import { closeClient, destroyClient, newClient } from './connection.js';
import { classifyPgError } from './pg-errors.js';
import { parsePostgresConfig, type PostgresConfig } from './postgres.config.js';

export async function testPostgres(config: Record<string, unknown>, opts: TestOptions = {}): Promise<TestResult> {
  let cfg: PostgresConfig;
  try {
    cfg = parsePostgresConfig(config);
  } catch (err) {
    const { error_class, message } = classifyPgError(err);
    return { ok: false, latency_ms: 0, message, error_class, checks: [], details: {}, tested_at: new Date().toISOString() };
  }

  const details: Record<string, unknown> = {};
  let address = cfg.host;
  let client: pg.Client | undefined;

  const steps: CheckStep[] = [
    {
      name: 'resolve',
      async run() {
        if (isIP(cfg.host)) return `${cfg.host} is an IP address`;
        const found = await lookup(cfg.host);
        address = found.address;
        return `${cfg.host} resolves to ${address}`;
      },
    },
    {
      name: 'connect',
      run: (signal) => openTcp(address, cfg.port, signal).then(() => `TCP connection to ${cfg.host}:${cfg.port} opened`),
    },
    {
      name: 'authenticate',
      async run(signal) {
        const c = newClient(cfg);
        client = c;
        signal.addEventListener('abort', () => destroyClient(c), { once: true });
        await c.connect();
        return `authenticated as "${cfg.user}" to database "${cfg.database}"`;
      },
    },
    {
      name: 'read_access',
      async run() {
        if (!client) throw new Error('not connected');
        const { rows } = await client.query<{ current_user: string; server_version: string; schema_usage: boolean | null }>(
          `select current_user, current_setting('server_version') as server_version,
                  (select has_schema_privilege(n.oid, 'USAGE') from pg_namespace n where n.nspname = $1) as schema_usage`,
          [cfg.schema],
        );
        const row = rows[0];
        if (!row) throw new Error('the server answered no rows');
        details['server_version'] = row.server_version;
        details['current_user'] = row.current_user;
        if (row.schema_usage === null) {
          throw new ConnectorError(`schema "${cfg.schema}" does not exist`, 'config_error');
        }
        if (!row.schema_usage) {
          throw new ConnectorError(`user "${row.current_user}" has no USAGE privilege on schema "${cfg.schema}"`, 'config_error');
        }
        return `"${row.current_user}" can use schema "${cfg.schema}" (PostgreSQL ${row.server_version})`;
      },
    },
  ];

  return runChecks(
    {
      steps,
      classify: classifyPgError,
      details,
      secrets: cfg.password ? [cfg.password] : [],
      cleanup: () => (client ? closeClient(client) : undefined),
      successMessage: (d) => `connected to PostgreSQL ${String(d['server_version'])} as "${String(d['current_user'])}"`,
    },
    opts,
  );
}

function openTcp(host: string, port: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host, port });
    const onAbort = () => socket.destroy();
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve();
    });
    socket.once('error', (err) => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      reject(err);
    });
  });
}
