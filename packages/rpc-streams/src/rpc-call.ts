import type { ClientProxy } from '@nestjs/microservices';
import { firstValueFrom } from 'rxjs';
import { RedisStreamsClient } from './redis-streams.client.js';

/** One request, one reply, as a promise: rejects with the handler's error or an `RpcTimeoutError`. */
export function rpcCall<T>(client: ClientProxy, pattern: string, data: unknown): Promise<T> {
  if (client instanceof RedisStreamsClient) return client.request<T>(pattern, data);
  return firstValueFrom(client.send<T>(pattern, data));
}
