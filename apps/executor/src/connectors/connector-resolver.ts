/** Asks the catalog for the configs (secrets in clear) of the connectors a run uses. */
import type { ClientProxy } from '@nestjs/microservices';
import { isRpcReply, type ResolvedConnector, type RpcContext, type RpcReply } from '@conduit/contracts';
import { rpcCall } from '@conduit/rpc-streams';

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
  client: ClientProxy,
  ids: readonly string[],
  ctx: RpcContext,
): Promise<Map<string, ResolvedConnector>> {
  if (ids.length === 0) return new Map();
  let reply: unknown;
  try {
    reply = await rpcCall<RpcReply<ResolvedConnector[]>>(client, 'catalog.connectors.resolve', { ctx, data: { ids: [...ids] } });
  } catch (err) {
    const timeout = (err as Error | null)?.name === 'RpcTimeoutError';
    throw new ConnectorResolveError(
      timeout ? 'the catalog did not answer in time while resolving connectors' : 'the catalog failed to resolve connectors',
      timeout ? 'service_unavailable' : 'internal',
    );
  }
  if (!isRpcReply(reply)) throw new ConnectorResolveError('the catalog answered connectors.resolve with a malformed reply', 'internal');
  if (!reply.ok) throw new ConnectorResolveError(`resolving connectors failed: ${reply.error.detail ?? reply.error.code}`, reply.error.code);
  const list = Array.isArray(reply.data) ? (reply.data as ResolvedConnector[]) : [];
  return new Map(list.map((c) => [c.id, c]));
}
