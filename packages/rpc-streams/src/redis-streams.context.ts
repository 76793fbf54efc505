import { BaseRpcContext, type PacketMetadata } from '@nestjs/microservices';

type RedisStreamsContextArgs = [
  pattern: string,
  entryId: string,
  metadata: PacketMetadata | undefined,
  deadline?: number,
];

/** What a handler can inject with `@Ctx()` when served by {@link RedisStreamsServer}. */
export class RedisStreamsContext extends BaseRpcContext<RedisStreamsContextArgs> {
  /** The pattern the caller sent. */
  getPattern(): string {
    return this.args[0];
  }

  /** The id of the stream entry that carried the request. */
  getEntryId(): string {
    return this.args[1];
  }

  /** Metadata the client attached with `setOnDispatchHook`, if any. */
  getMetadata(): PacketMetadata | undefined {
    return this.args[2];
  }

  /** Epoch ms after which the caller no longer waits for the answer; undefined for an event. */
  getDeadline(): number | undefined {
    return this.args[3];
  }
}
