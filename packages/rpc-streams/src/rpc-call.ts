import type { ClientProxy } from '@nestjs/microservices';
import { firstValueFrom } from 'rxjs';
import { type CallOptions, RedisStreamsClient } from './redis-streams.client.js';

/**
 * One request, one reply, as a promise: rejects with the handler's error or an `RpcTimeoutError`. `opts.timeoutMs`
 * needs a RedisStreamsClient (other transports keep their own timeout). The untyped transport call: services call
 * through RpcClient, which types and parses the answer; this is for tests of the transport and of raw envelopes.
 */
export function rpcCall<T>(client: ClientProxy, pattern: string, data: unknown, opts: CallOptions = {}): Promise<T> {
  if (client instanceof RedisStreamsClient) return client.request<T>(pattern, data, opts);
  return firstValueFrom(client.send<T>(pattern, data));
}
