import { RedisStreamsClient, rpcCall } from '@conduit/rpc-streams';
import type { RpcReply } from '@conduit/contracts';
import { REDIS_URL } from '../redis/redis-keys.js';
import { rpcCtx } from '../postgres/schemas.js';

/** Calls a service over the real transport on the suite's prefix, as a tenant with read and write scopes. */
export class RpcTestCaller {
  readonly client: RedisStreamsClient;

  /** The client connects on the first call, so a suite may make its caller before Redis is checked. */
  constructor(prefix: string, url = REDIS_URL) {
    this.client = new RedisStreamsClient({ url, prefix, timeoutMs: 10_000 });
  }

  call<T>(tenantId: string, pattern: string, data: unknown): Promise<RpcReply<T>> {
    return rpcCall<RpcReply<T>>(this.client, pattern, { ctx: rpcCtx(tenantId), data });
  }

  /** The data of a successful reply; fails the test with the error otherwise. */
  async ok<T>(tenantId: string, pattern: string, data: unknown): Promise<T> {
    const reply = await this.call<T>(tenantId, pattern, data);
    if (!reply.ok) throw new Error(`${pattern} failed: ${JSON.stringify(reply.error)}`);
    return reply.data;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
