/**
 * One Redis pub/sub channel whose messages have a schema in packages/contracts: a connection of its own (a
 * subscribed connection can do nothing else), every message parsed before it reaches the handler, and a hook for
 * each time the subscription is made again after a disconnect (pub/sub keeps nothing for absent subscribers, so
 * whoever caches on the strength of these messages must assume some were lost).
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ZodType } from 'zod';

export interface ChannelSubscriptionOptions<T> {
  redisUrl: string;
  /** The full channel name, prefix included. */
  channel: string;
  schema: ZodType<T>;
  /** Names the subscription in log lines ("cancel", "connector changes"). */
  name: string;
  logger: Logger;
  onMessage: (message: T) => void;
  /** After a message that does not parse was logged; default nothing more. */
  onMalformed?: () => void;
  /** Each time the connection is ready, the first included (ioredis subscribes again by itself). */
  onReady?: () => void;
}

export class ChannelSubscription<T> {
  private subscriber: Redis | null = null;

  constructor(private readonly opts: ChannelSubscriptionOptions<T>) {}

  get channel(): string {
    return this.opts.channel;
  }

  async start(): Promise<void> {
    const { redisUrl, channel, name, logger, onReady } = this.opts;
    const subscriber = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
    subscriber.on('error', (err) => logger.warn({ err }, `${name} subscriber connection error`));
    subscriber.on('message', (_channel: string, text: string) => this.receive(text));
    if (onReady) subscriber.on('ready', onReady);
    await subscriber.connect();
    await subscriber.subscribe(channel);
    this.subscriber = subscriber;
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  private receive(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const message = this.opts.schema.safeParse(parsed);
    if (!message.success) {
      this.opts.logger.warn({ channel: this.opts.channel }, `ignored a malformed ${this.opts.name} message`);
      this.opts.onMalformed?.();
      return;
    }
    this.opts.onMessage(message.data);
  }
}
