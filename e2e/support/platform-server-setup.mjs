// Jest global setup: one PostgreSQL server for the platform's databases of every stack of the run (startStack reads
// E2E_PLATFORM_PG_URL), apart from the machine's, whose databases the suites' connectors use: connectors may never
// reach the platform's own server (docs/security.md). Global teardown stops it.
import { startOwnPostgres } from '@conduit/testing';

export default async function setup() {
  if (process.env.E2E_PLATFORM_PG_URL) return;
  const server = await startOwnPostgres({ durable: true });
  globalThis.conduitPlatformServer = server;
  process.env.E2E_PLATFORM_PG_URL = server.adminUrl;
}
