import { Logger } from '@nestjs/common';
import type { ClientProxy } from '@nestjs/microservices';
import { RPC, isRpcReply, type RpcData, type RpcPattern, type RpcRequest, type RpcResponse } from '@conduit/contracts';
import type { CallOptions } from './redis-streams.client.js';
import { rpcCall } from './rpc-call.js';
import { RpcRemoteError } from './rpc-remote.error.js';

export interface RpcClientOptions {
  /**
   * Parse the data of every `ok` reply with the pattern's response schema (default true). When false the envelope is
   * still checked and the data is trusted to be what the schema says: for a caller on a hot path that only passes the
   * answer on (the gateway in production, see docs/rpc.md); its tests parse.
   */
  parseReplies?: boolean;
}

/** The data of an `ok` reply with the resource's ETag, when the service sent one (GET and PUT). */
export interface RpcAnswer<P extends RpcPattern> {
  data: RpcResponse<P>;
  etag?: string;
}

/**
 * The typed caller side of the RPC contract (packages/contracts/src/rpc-patterns.ts): `call(pattern, { ctx, data })`
 * resolves with the reply's data as the pattern's response type. It rejects with an RpcRemoteError when the service
 * answered a problem or a reply that does not parse, an RpcTimeoutError when no reply came in time, and a
 * RedisUnavailableError when Redis is down.
 */
export class RpcClient {
  private readonly logger = new Logger(RpcClient.name);
  private readonly parseReplies: boolean;

  constructor(
    readonly transport: ClientProxy,
    options: RpcClientOptions = {},
  ) {
    this.parseReplies = options.parseReplies ?? true;
  }

  async call<P extends RpcPattern>(
    pattern: P,
    message: RpcRequest<RpcData<P>>,
    opts?: CallOptions,
  ): Promise<RpcResponse<P>> {
    return (await this.answer(pattern, message, opts)).data;
  }

  /** As `call`, with the ETag the service put on its answer. */
  async answer<P extends RpcPattern>(
    pattern: P,
    message: RpcRequest<RpcData<P>>,
    opts?: CallOptions,
  ): Promise<RpcAnswer<P>> {
    let reply: unknown;
    try {
      reply = await rpcCall<unknown>(this.transport, pattern, message, opts);
    } catch (err) {
      // Ours (a timeout, Redis down, the client closed) are Errors; what a server answered outside the contract (no
      // handler for the pattern, a handler not wrapped by handleRpc) arrives as plain JSON.
      if (err instanceof Error) throw err;
      throw this.malformed(pattern, 'an error outside the reply envelope');
    }
    if (!isRpcReply(reply)) throw this.malformed(pattern, 'not a reply envelope');
    if (!reply.ok) throw new RpcRemoteError(pattern, reply.error);
    let data = reply.data as RpcResponse<P>;
    if (this.parseReplies) {
      const parsed = RPC[pattern].response.safeParse(reply.data);
      if (!parsed.success) {
        // Paths and codes only: a value may be a tenant's data.
        throw this.malformed(
          pattern,
          parsed.error.issues
            .slice(0, 5)
            .map((i) => `${i.path.join('.') || '(root)'}: ${i.code}`)
            .join(', '),
        );
      }
      data = parsed.data as RpcResponse<P>;
    }
    return reply.etag === undefined ? { data } : { data, etag: reply.etag };
  }

  private malformed(pattern: string, why: string): RpcRemoteError {
    this.logger.error(`Malformed reply to ${pattern}: ${why}`);
    return RpcRemoteError.malformedReply(pattern);
  }
}
