/**
 * Asks the catalog for the configs of the connectors a run uses (or takes them from the executor's cache). Their secrets arrive sealed as stored (they never
 * cross Redis in clear) and are opened here, in this process's memory only, as the run starts to use them.
 */
import { decryptSecrets, getDriver } from '@conduit/connectors';
import { SecretBox, SecretOpenError, isSealed, type SecretKeys } from '@conduit/secrets';
import type { ConnectorVersion, ResolvedConnector, RpcContext } from '@conduit/contracts';
import { type RpcClient, RpcRemoteError, RpcTimeoutError } from '@conduit/rpc-streams';
import type { ConnectorCache } from './connector-cache.js';

export class ConnectorResolveError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'ConnectorResolveError';
  }
}

/** Only the tenant's connectors come back; an id missing from the answer is reported by the node that uses it. */
export async function resolveConnectors(
  client: RpcClient,
  ids: readonly string[],
  ctx: RpcContext,
  secretsKey: Buffer | SecretKeys,
): Promise<Map<string, ResolvedConnector>> {
  return openConnectors(await fetchSealed(client, ids, ctx), new SecretBox(secretsKey), ctx.tenant_id);
}

/**
 * resolveConnectors through the executor's cache (connector-cache.ts): a connector held at the version the run's
 * command names, or newer, is not asked for; the others are, in one call, and the answer is held for the next runs.
 * Secrets are opened per run in both cases.
 */
export class CachedConnectorResolver {
  private readonly box: SecretBox;

  constructor(
    private readonly client: RpcClient,
    secretsKey: Buffer | SecretKeys,
    private readonly cache: ConnectorCache,
  ) {
    this.box = new SecretBox(secretsKey);
  }

  async resolve(
    ids: readonly string[],
    versions: readonly ConnectorVersion[] | undefined,
    ctx: RpcContext,
  ): Promise<Map<string, ResolvedConnector>> {
    const tenantId = ctx.tenant_id;
    const wanted = new Map((versions ?? []).map((v) => [v.id, v.version]));
    const held: ResolvedConnector[] = [];
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const version = wanted.get(id);
      const hit = version === undefined ? undefined : this.cache.get(tenantId, id, version);
      if (hit) held.push(hit);
      else missing.push(id);
    }
    if (missing.length > 0) {
      const generation = this.cache.generation;
      const answered = await fetchSealed(this.client, missing, ctx);
      this.cache.store(tenantId, answered, generation);
      held.push(...answered);
    }
    return openConnectors(held, this.box, tenantId);
  }
}

/** The configs as the catalog stores them, secrets sealed. */
async function fetchSealed(client: RpcClient, ids: readonly string[], ctx: RpcContext): Promise<ResolvedConnector[]> {
  if (ids.length === 0) return [];
  try {
    return await client.call('catalog.connectors.resolve', { ctx, data: { ids: [...ids] } });
  } catch (err) {
    if (err instanceof RpcRemoteError) {
      throw new ConnectorResolveError(
        err.malformed ? err.message : `resolving connectors failed: ${err.message}`,
        err.code,
      );
    }
    const timeout = err instanceof RpcTimeoutError;
    throw new ConnectorResolveError(
      timeout
        ? 'the catalog did not answer in time while resolving connectors'
        : 'the catalog failed to resolve connectors',
      timeout ? 'service_unavailable' : 'internal',
    );
  }
}

function openConnectors(
  list: readonly ResolvedConnector[],
  box: SecretBox,
  tenantId: string,
): Map<string, ResolvedConnector> {
  return new Map(list.map((c) => [c.id, opened(c, box, tenantId)]));
}

/**
 * A type without a driver is left sealed: the node that uses it fails with connector_unfit, not here. A secret that
 * came in clear is refused: it crossed Redis as plaintext, which the catalog never does.
 */
function opened(c: ResolvedConnector, box: SecretBox, tenantId: string): ResolvedConnector {
  const driver = getDriver(c.type);
  if (!driver) return c;
  const clear = driver.info.secret_fields.find((f) => typeof c.config[f] === 'string' && !isSealed(c.config[f]));
  if (clear !== undefined)
    throw new ConnectorResolveError(`connector ${c.id}: secret field "${clear}" arrived in clear`, 'internal');
  try {
    return { ...c, config: decryptSecrets(c.type, c.config, box, { tenantId, connectorId: c.id }) };
  } catch (err) {
    // The message names the field, never the value. A secret that does not open here (copied from another connector,
    // or under a key no longer configured) is the connector's settings to fix, as Test Connection tells.
    if (err instanceof SecretOpenError) {
      throw new ConnectorResolveError(
        `connector ${c.id}: ${err.message}; send the secret again with an update of the connector`,
        'config_error',
      );
    }
    throw new ConnectorResolveError(`connector ${c.id}: ${(err as Error).message}`, 'internal');
  }
}
