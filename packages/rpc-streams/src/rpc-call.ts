import type { ClientProxy } from '@nestjs/microservices';
import { firstValueFrom } from 'rxjs';

/** One request, one reply, as a promise: rejects with the handler's error or an `RpcTimeoutError`. */
export function rpcCall<T>(client: ClientProxy, pattern: string, data: unknown): Promise<T> {
  return firstValueFrom(client.send<T>(pattern, data));
}
