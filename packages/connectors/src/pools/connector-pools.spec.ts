import { ConnectorPools, configVersion, type ClosablePool } from './connector-pools.js';

/** A pool that only records whether it was ended. */
class RecordingPool implements ClosablePool {
  ended = false;
  end(): Promise<void> {
    this.ended = true;
    return Promise.resolve();
  }
}

describe('configVersion', () => {
  it('is the same for equal configs in any key order and differs for any change', () => {
    expect(configVersion({ host: 'a', port: 1, nested: { x: 1, y: [1, 2] } })).toBe(
      configVersion({ nested: { y: [1, 2], x: 1 }, port: 1, host: 'a' }),
    );
    expect(configVersion({ host: 'a', port: 1 })).not.toBe(configVersion({ host: 'a', port: 2 }));
    expect(configVersion({ host: 'a', password: 'x' })).not.toBe(configVersion({ host: 'a', password: 'y' }));
  });
});

describe('ConnectorPools', () => {
  let pools: ConnectorPools;
  beforeEach(() => {
    pools = new ConnectorPools({ max: 2, idleMs: 60_000 });
  });
  afterEach(() => pools.closeAll());

  it('answers one pool per tenant, connector and version', () => {
    const made: RecordingPool[] = [];
    const create = () => {
      const pool = new RecordingPool();
      made.push(pool);
      return pool;
    };
    const a = pools.use('postgres', 't1', 'c1', { v: 1 }, create);
    const b = pools.use('postgres', 't1', 'c1', { v: 1 }, create);
    const otherTenant = pools.use('postgres', 't2', 'c1', { v: 1 }, create);
    expect(b.pool).toBe(a.pool);
    expect(otherTenant.pool).not.toBe(a.pool);
    expect(made).toHaveLength(2);
    for (const use of [a, b, otherTenant]) use.done();
  });

  it('closes the pool of an older version once the last call on it is done', () => {
    const old = pools.use('postgres', 't1', 'c1', { v: 1 }, () => new RecordingPool());
    const fresh = pools.use('postgres', 't1', 'c1', { v: 2 }, () => new RecordingPool());
    expect(fresh.pool).not.toBe(old.pool);
    expect(old.pool.ended).toBe(false);
    old.done();
    old.done(); // a second done() changes nothing
    expect(old.pool.ended).toBe(true);
    expect(fresh.pool.ended).toBe(false);
    fresh.done();
    expect(pools.size).toBe(1);
  });

  it('keeps at most maxPools open by closing the least recently used idle ones, never one in use', () => {
    const capped = new ConnectorPools({ max: 1, idleMs: 60_000, maxPools: 2 });
    const use = (connector: string) => capped.use('postgres', 't1', connector, {}, () => new RecordingPool());
    const first = use('c1');
    const second = use('c2');
    second.done();
    first.done();
    // c2 was given back first: it goes, c1 stays.
    const third = use('c3');
    expect([second.pool.ended, first.pool.ended]).toEqual([true, false]);
    expect(capped.size).toBe(2);
    // With every pool in use nothing can go: the new one opens past the cap rather than wait.
    const again = use('c1');
    const fourth = use('c4');
    expect([again.pool.ended, third.pool.ended, fourth.pool.ended]).toEqual([false, false, false]);
    expect(capped.size).toBe(3);
    for (const u of [third, again, fourth]) u.done();
    void capped.closeAll();
  });

  it('refuses calls after closeAll, having closed every pool', async () => {
    const use = pools.use('mysql', 't1', 'c1', {}, () => new RecordingPool());
    use.done();
    await pools.closeAll();
    expect(use.pool.ended).toBe(true);
    expect(() => pools.use('mysql', 't1', 'c1', {}, () => new RecordingPool())).toThrow('closed');
  });
});
