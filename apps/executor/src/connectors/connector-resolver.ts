/**
 * Asks the catalog for the configs of the connectors a run uses. Their secrets arrive sealed as stored (they never
 * cross Redis in clear) and are opened here, in this process's memory only, as the run starts to use them.
 */
import { decryptSecrets, getDriver } from '@conduit/connectors';
import { SecretBox, SecretOpenError, isSealed, type SecretKeys } from '@conduit/secrets';
import type { ResolvedConnector, RpcContext } from '@conduit/contracts';
import { type RpcClient, RpcRemoteError, RpcTimeoutError } from '@conduit/rpc-streams';

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
  if (ids.length === 0) return new Map();
  let list: ResolvedConnector[];
  try {
    list = await client.call('catalog.connectors.resolve', { ctx, data: { ids: [...ids] } });
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
  const box = new SecretBox(secretsKey);
  return new Map(list.map((c) => [c.id, opened(c, box, ctx.tenant_id)]));
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
