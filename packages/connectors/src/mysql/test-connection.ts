/**
 * Test Connection for mysql: resolve, network_policy, connect (TCP), authenticate, read_access, privileges (a warning
 * for SUPER or FILE); stops at the first failure.
 */
import type mysql from 'mysql2';
import { invalidConfigResult } from '../config-parser.js';
import { runChecks, type CheckStep } from '../connection-checks.js';
import { ConnectorError } from '../connector-error.js';
import { openTcp } from '../network-steps.js';
import { policySteps, type ResolvedTarget } from '../network/policy-steps.js';
import { privilegesStep, withWarnings } from '../network/privilege-warning.js';
import type { TestOptions, TestResult } from '../types.js';
import { closeMysql, connectMysql } from './connection.js';
import { classifyMysqlError } from './mysql-errors.js';
import { parseMysqlConfig, type MysqlConfig } from './mysql.config.js';

export async function testMysql(config: Record<string, unknown>, opts: TestOptions = {}): Promise<TestResult> {
  let cfg: MysqlConfig;
  try {
    cfg = parseMysqlConfig(config);
  } catch (err) {
    return invalidConfigResult(err);
  }
  const details: Record<string, unknown> = {};
  const target: ResolvedTarget = { address: cfg.host };
  let connection: mysql.Connection | undefined;

  const steps: CheckStep[] = [
    ...policySteps({ connectorType: 'mysql', host: cfg.host, port: cfg.port }, target),
    {
      name: 'connect',
      run: (signal) =>
        openTcp(target.address, cfg.port, signal).then(() => `TCP connection to ${cfg.host}:${cfg.port} opened`),
    },
    {
      name: 'authenticate',
      async run(signal) {
        connection = await connectMysql(cfg, signal);
        return `authenticated as "${cfg.user}" to database "${cfg.database}"`;
      },
    },
    {
      name: 'read_access',
      async run() {
        if (!connection) throw new Error('not connected');
        const [rows] = await connection
          .promise()
          .query<mysql.RowDataPacket[]>(
            'select version() as server_version, current_user() as current_user_name, database() as db, ' +
              '(select count(*) from information_schema.tables where table_schema = database()) as table_count',
          );
        const row = rows[0];
        if (!row) throw new Error('the server answered no rows');
        details['server_version'] = row['server_version'];
        details['current_user'] = row['current_user_name'];
        details['table_count'] = Number(row['table_count']);
        if (row['db'] !== cfg.database)
          throw new ConnectorError(`database "${cfg.database}" is not selected`, 'config_error');
        return `"${String(row['current_user_name'])}" sees ${String(row['table_count'])} table(s) in "${cfg.database}"`;
      },
    },
    privilegesStep(details, async () => {
      if (!connection) throw new Error('not connected');
      // USER_PRIVILEGES names the grantee 'user'@'host', as current_user() answers user@host.
      const [rows] = await connection.promise().query<mysql.RowDataPacket[]>(
        `select privilege_type from information_schema.user_privileges
          where privilege_type in ('SUPER', 'FILE')
            and grantee = concat('''', substring_index(current_user(), '@', 1), '''@''', substring_index(current_user(), '@', -1), '''')
          order by privilege_type desc`,
      );
      return rows.map((r) => `the ${String(r['privilege_type'])} privilege`);
    }),
  ];

  return runChecks(
    {
      steps,
      classify: classifyMysqlError,
      details,
      secrets: cfg.password ? [cfg.password] : [],
      cleanup: () => (connection ? closeMysql(connection) : undefined),
      successMessage: (d) =>
        withWarnings(`connected to MySQL/MariaDB ${String(d['server_version'])} as "${String(d['current_user'])}"`, d),
    },
    opts,
  );
}
