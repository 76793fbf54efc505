import { type Socket, createServer } from 'node:net';
import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { AppError } from '@conduit/contracts';
import { RedisUnavailableError, RpcRemoteError, RpcTimeoutError } from '@conduit/rpc-streams';
import { asDependencyUnavailable, unavailableDependencyOf } from './dependency-errors.js';

// Real clients meeting real outages: a port nobody listens on, a backend the server terminates, a command timeout.
const PG_URL = process.env.E2E_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function closedPort(): Promise<number> {
  return new Promise((ok) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => ok(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (err) {
    return err;
  }
  throw new Error('expected the work to fail');
}

describe('unavailableDependencyOf', () => {
  it('classifies a refused PostgreSQL connection as the database', async () => {
    const ds = new DataSource({
      type: 'postgres',
      url: `postgres://postgres@127.0.0.1:${await closedPort()}/postgres`,
    });
    const err = await failureOf(() => ds.initialize());
    expect(unavailableDependencyOf(err)).toBe('database');
  });

  it('classifies a session the server terminates (pg_ctl stop -m fast) as the database, and an SQL error as nothing', async () => {
    const ds = new DataSource({ type: 'postgres', url: PG_URL, poolSize: 1 });
    await ds.initialize();
    try {
      const syntax = await failureOf(() => ds.query('SELECT FROM WHERE'));
      expect(unavailableDependencyOf(syntax)).toBeUndefined();
      const terminated = await failureOf(() => ds.query('SELECT pg_terminate_backend(pg_backend_pid())'));
      expect(unavailableDependencyOf(terminated)).toBe('database');
    } finally {
      await ds.destroy();
    }
  });

  it('classifies the next statement of a transaction whose session the server terminated as the database', async () => {
    const ds = new DataSource({ type: 'postgres', url: PG_URL, poolSize: 2 });
    await ds.initialize();
    try {
      const err = await failureOf(() =>
        ds.transaction(async (manager) => {
          await manager.query('SELECT pg_terminate_backend(pg_backend_pid())').catch(() => undefined);
          // This one meets the closed socket, which releases the runner; the next meets the released runner.
          await manager.query('SELECT 1').catch(() => undefined);
          await manager.query('SELECT 1');
        }),
      );
      expect((err as Error).name).toBe('QueryRunnerProviderAlreadyReleasedError');
      expect(unavailableDependencyOf(err)).toBe('database');
    } finally {
      await ds.destroy();
    }
  });

  it("classifies ioredis's command timeout on a hung server, and its closed connection, as Redis", async () => {
    // A server that accepts and never answers is what a SIGSTOPped redis-server looks like to a client.
    const sockets: Socket[] = [];
    const hung = createServer((socket) => sockets.push(socket));
    await new Promise<void>((ok) => hung.listen(0, '127.0.0.1', ok));
    const address = hung.address();
    const hungPort = typeof address === 'object' && address ? address.port : 0;
    const timingOut = new Redis({ port: hungPort, commandTimeout: 100, lazyConnect: true, retryStrategy: () => null });
    timingOut.on('error', () => undefined);
    const refused = new Redis({ port: await closedPort(), lazyConnect: true, retryStrategy: () => null });
    refused.on('error', () => undefined);
    try {
      const timedOut = await failureOf(() => timingOut.get('k'));
      expect((timedOut as Error).message).toBe('Command timed out');
      expect(unavailableDependencyOf(timedOut)).toBe('redis');
      const closed = await failureOf(() => refused.get('k'));
      expect(unavailableDependencyOf(closed)).toBe('redis');
    } finally {
      timingOut.disconnect();
      refused.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise((ok) => hung.close(ok));
    }
  });

  it("classifies Redis's 'not now' replies (failover, out of memory, failed save, loading) as Redis, not other replies", async () => {
    // Error replies Redis gives in those states, and one that is the command's fault.
    const replies = [
      "READONLY You can't write against a read only replica.",
      "OOM command not allowed when used memory > 'maxmemory'.",
      'MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk.',
      'LOADING Redis is loading the dataset in memory',
      'CLUSTERDOWN The cluster is down',
      'WRONGTYPE Operation against a key holding the wrong kind of value',
    ];
    // A command on key `k<i>` gets the i-th reply, whatever else arrives with it; any other (ioredis's CLIENT SETINFO
    // at connect) gets +OK.
    const server = createServer((socket) =>
      socket.on('data', (data) => {
        for (const [command] of data.toString().matchAll(/\*\d+\r\n(?:\$\d+\r\n[^\r]*\r\n)+/g)) {
          const key = /\r\nk(\d+)\r\n/.exec(command);
          socket.write(key ? `-${replies[Number(key[1])]}\r\n` : '+OK\r\n');
        }
      }),
    );
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const address = server.address();
    const client = new Redis({
      port: typeof address === 'object' && address ? address.port : 0,
      lazyConnect: true,
      enableReadyCheck: false,
      retryStrategy: () => null,
    });
    client.on('error', () => undefined);
    try {
      const classes = [];
      for (let i = 0; i < replies.length; i++)
        classes.push(unavailableDependencyOf(await failureOf(() => client.set(`k${i}`, 'v'))));
      expect(classes).toEqual(['redis', 'redis', 'redis', 'redis', 'redis', undefined]);
    } finally {
      client.disconnect();
      await new Promise((ok) => server.close(ok));
    }
  });

  it('classifies an RPC timeout as a service and leaves domain and programming errors alone', () => {
    expect(unavailableDependencyOf(new RpcTimeoutError('catalog.projects.list', 5000))).toBe('service');
    expect(unavailableDependencyOf(new RedisUnavailableError('catalog.projects.list'))).toBe('redis');
    expect(unavailableDependencyOf(new AppError('not_found', 'no such project'))).toBeUndefined();
    expect(unavailableDependencyOf(new TypeError('x is undefined'))).toBeUndefined();
    // By class, not by name: an error that only calls itself so is not a timeout.
    expect(unavailableDependencyOf(Object.assign(new Error('late'), { name: 'RpcTimeoutError' }))).toBeUndefined();
    // A 503 another service answered keeps the dependency it named.
    const remote = new RpcRemoteError('catalog.projects.get', {
      code: 'service_unavailable',
      detail: 'down',
      dependency: 'database',
    });
    expect(unavailableDependencyOf(remote)).toBe('database');
  });

  it('turns a classified error into the 503 naming its class, and nothing else', () => {
    const err = asDependencyUnavailable(new RpcTimeoutError('catalog.projects.list', 5000));
    expect(err?.toDomainError()).toEqual({
      code: 'service_unavailable',
      detail: expect.any(String),
      dependency: 'service',
    });
    expect(asDependencyUnavailable(new Error('boom'))).toBeUndefined();
  });
});
