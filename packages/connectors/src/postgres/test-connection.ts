/**
 * Test Connection for postgres: resolve, network_policy, connect (TCP), authenticate, read_access, privileges (a
 * warning for superuser rights); stops at the first failure.
 */
import type pg from 'pg';
import { runChecks, type CheckStep } from '../connection-checks.js';
import { ConnectorError } from '../connector-error.js';
import type { TestOptions, TestResult } from '../types.js';
import { openTcp } from '../network-steps.js';
import { policySteps, type ResolvedTarget } from '../network/policy-steps.js';
import { privilegesStep, withWarnings } from '../network/privilege-warning.js';
import { closeClient, destroyClient, newClient } from './connection.js';
import { classifyPgError } from './pg-errors.js';
import { parsePostgresConfig, type PostgresConfig } from './postgres.config.js';

export async function testPostgres(config: Record<string, unknown>, opts: TestOptions = {}): Promise<TestResult> {
  let cfg: PostgresConfig;
  try {
    cfg = parsePostgresConfig(config);
  } catch (err) {
    const { error_class, message } = classifyPgError(err);
    return {
      ok: false,
      latency_ms: 0,
      message,
      error_class,
      checks: [],
      details: {},
      tested_at: new Date().toISOString(),
    };
  }

  const details: Record<string, unknown> = {};
  const target: ResolvedTarget = { address: cfg.host };
  let client: pg.Client | undefined;

  const steps: CheckStep[] = [
    ...policySteps({ connectorType: 'postgres', host: cfg.host, port: cfg.port, database: cfg.database }, target),
    {
      name: 'connect',
      run: (signal) =>
        openTcp(target.address, cfg.port, signal).then(() => `TCP connection to ${cfg.host}:${cfg.port} opened`),
    },
    {
      name: 'authenticate',
      async run(signal) {
        // The checked address, not the name again: a second DNS answer could be a refused address.
        const c = newClient(cfg, { host: target.address });
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
        const { rows } = await client.query<{
          current_user: string;
          server_version: string;
          schema_usage: boolean | null;
        }>(
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
          throw new ConnectorError(
            `user "${row.current_user}" has no USAGE privilege on schema "${cfg.schema}"`,
            'config_error',
          );
        }
        return `"${row.current_user}" can use schema "${cfg.schema}" (PostgreSQL ${row.server_version})`;
      },
    },
    privilegesStep(details, async () => {
      if (!client) throw new Error('not connected');
      const { rows } = await client.query<{
        superuser: boolean;
        read_files: boolean;
        write_files: boolean;
        programs: boolean;
      }>(
        `select r.rolsuper as superuser,
                pg_has_role(current_user, 'pg_read_server_files', 'MEMBER') as read_files,
                pg_has_role(current_user, 'pg_write_server_files', 'MEMBER') as write_files,
                pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER') as programs
           from pg_roles r where r.rolname = current_user`,
      );
      const row = rows[0];
      if (!row) return [];
      if (row.superuser) return ['superuser rights (rolsuper)'];
      return [
        ...(row.read_files ? ['membership of pg_read_server_files'] : []),
        ...(row.write_files ? ['membership of pg_write_server_files'] : []),
        ...(row.programs ? ['membership of pg_execute_server_program'] : []),
      ];
    }),
  ];

  return runChecks(
    {
      steps,
      classify: classifyPgError,
      details,
      secrets: cfg.password ? [cfg.password] : [],
      cleanup: () => (client ? closeClient(client) : undefined),
      successMessage: (d) =>
        withWarnings(`connected to PostgreSQL ${String(d['server_version'])} as "${String(d['current_user'])}"`, d),
    },
    opts,
  );
}
