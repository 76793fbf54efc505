/**
 * The PostgreSQL server a test stack keeps the platform's database on: never the machine's, whose databases the
 * suites' connectors read and write, since connectors may never reach the platform's own PostgreSQL server
 * (docs/security.md). E2E_PLATFORM_PG_URL names one started for a whole run (the e2e suites' global setup); without it,
 * the process starts one of its own (startOwnPostgres, committing as the machine's does) at its first stack, shared by
 * its later stacks and removed when the process exits.
 */
import { startOwnPostgres, type OwnPostgres } from '../servers/own-postgres.js';

let own: Promise<OwnPostgres> | undefined;

/** A URL of a role that may create databases on the platform's server of this process's stacks. */
export async function platformPgAdminUrl(): Promise<string> {
  const given = process.env['E2E_PLATFORM_PG_URL'];
  if (given) return given;
  own ??= startOwnPostgres({ durable: true }).then((server) => {
    process.once('exit', () => server.destroySync());
    return server;
  });
  return (await own).adminUrl;
}
