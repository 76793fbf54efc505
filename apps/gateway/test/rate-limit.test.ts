import { type Socket, createServer } from 'node:net';
import { Redis } from 'ioredis';
import { headersFor } from '../src/rate-limit/rate-limit-headers.js';
import { RateLimiter, leaseSize } from '../src/rate-limit/rate-limiter.js';
import { openTestRedis, type TestRedis } from './auth-fixtures.js';

let t: TestRedis;
let limiter: RateLimiter;

beforeAll(async () => {
  t = await openTestRedis();
  limiter = new RateLimiter(t.redis, t.prefix);
});

afterAll(async () => {
  await t?.cleanup();
});

describe('RateLimiter (GCRA in Redis)', () => {
  it('allows 600 a minute at once, then refuses with a short Retry-After', async () => {
    const started = performance.now();
    const burst = await Promise.all(Array.from({ length: 600 }, () => limiter.consume('key_burst', 600)));
    expect(burst.every((r) => r.allowed)).toBe(true);
    expect(Math.min(...burst.map((r) => r.remaining))).toBeLessThanOrEqual(1);

    // One request is earned back every 100 ms, so only as many extras as the time spent may pass.
    let extra = 0;
    let refused = await limiter.consume('key_burst', 600);
    while (refused.allowed && extra < 100) {
      extra++;
      refused = await limiter.consume('key_burst', 600);
    }
    const elapsedMs = performance.now() - started;
    expect(extra).toBeLessThanOrEqual(Math.ceil(elapsedMs / 100) + 1);
    expect(refused).toMatchObject({ allowed: false, limit: 600, remaining: 0, retry_after_s: 1 });
    expect(refused.reset_s).toBeGreaterThanOrEqual(59);
    expect(refused.reset_s).toBeLessThanOrEqual(60);
  });

  it('counts down remaining and spaces refusals by 60 s / limit', async () => {
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limiter.consume('key_small', 3));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
    expect(results.map((r) => r.reset_s)).toEqual([20, 40, 60, 60]);
    // The next request is earned back 20 s after the first one.
    expect(results[3]!.retry_after_s).toBeGreaterThanOrEqual(19);
    expect(results[3]!.retry_after_s).toBeLessThanOrEqual(20);
  });

  it('keeps credentials independent', async () => {
    await limiter.consume('key_a', 1);
    expect((await limiter.consume('key_a', 1)).allowed).toBe(false);
    expect((await limiter.consume('key_b', 1)).allowed).toBe(true);
  });

  it('never over-admits under concurrent consumers on several connections', async () => {
    const clients = await Promise.all([t.connect(), t.connect(), t.connect()]);
    const limiters = clients.map((client) => new RateLimiter(client, t.prefix));
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => limiters[i % limiters.length]!.consume('key_race', 10)),
    );
    // With 10 a minute, a request is earned back only after 6 s: exactly 10 may pass if the race is shorter.
    expect(performance.now() - started).toBeLessThan(6000);
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    expect(new Set(results.filter((r) => r.allowed).map((r) => r.remaining))).toEqual(
      new Set([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]),
    );
  });

  it('stores one key per credential that expires within the window', async () => {
    await limiter.consume('key_ttl', 60);
    const ttl = await t.redis.pttl(`${t.prefix}key_ttl`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1000);
  });

  it('rejects a limit that is not a positive integer', async () => {
    await expect(limiter.consume('key_bad', 0)).rejects.toThrow(RangeError);
  });
});

describe('RateLimiter leases (limits of 2,000 a minute and more)', () => {
  /** Requests earned back in `ms` at `limit` a minute, rounded up, plus one for the edge. */
  const earnedIn = (ms: number, limit: number) => Math.ceil((ms * limit) / 60_000) + 1;

  it('asks Redis once per lease of limit/1000 requests, and counts the lease as spent at once', async () => {
    expect([leaseSize(600), leaseSize(1999), leaseSize(2000), leaseSize(1_000_000)]).toEqual([1, 1, 2, 1000]);
    const limit = 100_000; // leases of 100
    const started = performance.now();
    const results = [];
    for (let i = 0; i < 250; i++) results.push(await limiter.consume('key_leased', limit));
    expect(results.every((r) => r.allowed)).toBe(true);
    // Handed out one by one: remaining counts down by one a request within a lease.
    expect(results.slice(0, 5).map((r) => r.remaining)).toEqual([99_999, 99_998, 99_997, 99_996, 99_995]);
    // Another replica finds three whole leases spent for 250 served, and reports its own lease as remaining.
    const seen = await new RateLimiter(t.redis, t.prefix).consume('key_leased', limit);
    const expected = limit - 300 - 1;
    expect(seen.remaining).toBeGreaterThanOrEqual(expected);
    expect(seen.remaining).toBeLessThanOrEqual(expected + earnedIn(performance.now() - started, limit));
  });

  it('never over-admits, and holds back at most one lease per replica', async () => {
    const clients = await Promise.all([t.connect(), t.connect(), t.connect()]);
    const replicas = clients.map((client) => new RateLimiter(client, t.prefix));
    // Leases of 2; 1,000 requests over the limit would take 30 s to be earned back, so some are refused even on a
    // machine slow enough to stretch the burst over seconds (5,600 against 5,000 a minute was not, at load 11).
    const limit = 2000;
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 3000 }, (_, i) => replicas[i % replicas.length]!.consume('key_leased_race', limit)),
    );
    const elapsedMs = performance.now() - started;
    const allowed = results.filter((r) => r.allowed).length;
    expect(allowed).toBeLessThanOrEqual(limit + earnedIn(elapsedMs, limit));
    expect(allowed).toBeGreaterThanOrEqual(limit - replicas.length * leaseSize(limit));
    expect(results.find((r) => !r.allowed)).toMatchObject({ allowed: false, limit, remaining: 0, retry_after_s: 1 });
  });

  it('shares one Redis call among the concurrent requests of a credential', async () => {
    const limit = 20_000; // leases of 20
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 40 }, () => limiter.consume('key_leased_burst', limit)));
    expect(results.every((r) => r.allowed)).toBe(true);
    // 40 concurrent requests took exactly two leases: another replica finds 40 spent (and reports its own lease).
    const seen = await new RateLimiter(t.redis, t.prefix).consume('key_leased_burst', limit);
    expect(seen.remaining).toBeGreaterThanOrEqual(limit - 40 - 1);
    expect(seen.remaining).toBeLessThanOrEqual(limit - 40 - 1 + earnedIn(performance.now() - started, limit));
  });
});

describe('headersFor', () => {
  it('announces policy and state, and Retry-After only on refusal', () => {
    expect(headersFor({ allowed: true, limit: 600, remaining: 599, reset_s: 1, retry_after_s: 0 })).toEqual({
      'RateLimit-Policy': '"default";q=600;w=60',
      RateLimit: '"default";r=599;t=1',
    });
    expect(headersFor({ allowed: false, limit: 600, remaining: 0, reset_s: 60, retry_after_s: 1 })).toEqual({
      'RateLimit-Policy': '"default";q=600;w=60',
      RateLimit: '"default";r=0;t=60',
      'Retry-After': '1',
    });
  });
});

describe('RateLimiter while Redis is unavailable (fails open)', () => {
  it('lets a request pass uncounted, without headers, when Redis is down', async () => {
    const down = new Redis({ port: await closedPort(), lazyConnect: true, retryStrategy: () => null });
    down.on('error', () => undefined);
    try {
      const result = await new RateLimiter(down, t.prefix).consume('key_down', 1);
      expect(result).toMatchObject({ allowed: true, unmetered: true });
      expect(headersFor(result)).toEqual({});
    } finally {
      down.disconnect();
    }
  });

  it('gives up on a hung Redis after the command timeout instead of holding the request', async () => {
    // Accepts and never answers: a SIGSTOPped redis-server as its clients see it.
    const sockets: Socket[] = [];
    const hung = createServer((socket) => sockets.push(socket));
    await new Promise<void>((ok) => hung.listen(0, '127.0.0.1', ok));
    const address = hung.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const client = new Redis({ port, enableReadyCheck: false, commandTimeout: 200, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await new Promise<void>((ok) => client.once('ready', () => ok()));
      const started = performance.now();
      const result = await new RateLimiter(client, t.prefix).consume('key_hung', 1);
      expect(result).toMatchObject({ allowed: true, unmetered: true });
      expect(performance.now() - started).toBeLessThan(1500);
    } finally {
      client.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise((ok) => hung.close(ok));
    }
  });
});

async function closedPort(): Promise<number> {
  return new Promise((ok) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => ok(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
