/** How every SQL driver's pooled connections live and die, checked the same way for each driver. */
import { waitFor } from '@conduit/testing';
import { setEnv } from './network-policy.js';
import type { PoolFixture } from './pool-fixture.js';

/** Registers the tests in the caller's describe: tenants and config versions apart, idle and closeAll, the policy. */
export function describePoolLifecycle(sandbox: { config: Record<string, unknown> }, fixture: PoolFixture): void {
  const { pools, reopen, scope, connectionId, waitClosed } = fixture;

  it('keeps tenants apart: the same connector id of another tenant has its own connections', async () => {
    const mine = await connectionId({ tenantId: 't1' });
    const theirs = await connectionId({ tenantId: 't2' });
    expect(theirs).not.toBe(mine);
    expect(pools().size).toBe(2);
  });

  it('closes the pool of a connector whose config changed and opens a new one', async () => {
    const old = await connectionId();
    const changed = { ...sandbox.config, connect_timeout_ms: 4321 };
    const fresh = await connectionId({ config: changed });
    expect(fresh).not.toBe(old);
    expect(pools().size).toBe(1);
    await waitClosed(old, 'the old version to be disconnected');
  });

  it('closes a pool left idle', async () => {
    await reopen(200);
    const id = await connectionId();
    await waitClosed(id, 'the idle connection to be closed');
    await waitFor(() => Promise.resolve(pools().size === 0), { what: 'the idle pool to be dropped', timeoutMs: 5000 });
  });

  it('closes every connection on closeAll', async () => {
    const id = await connectionId();
    await pools().closeAll();
    await waitClosed(id, 'the connection to be closed');
    await expect(connectionId()).rejects.toThrow('closed');
  });

  it('still applies the network policy to the connections it opens', async () => {
    const restore = setEnv({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: undefined });
    try {
      await expect(connectionId({ pool: scope('refused') })).rejects.toMatchObject({ errorClass: 'config_error' });
    } finally {
      restore();
    }
  });
}
