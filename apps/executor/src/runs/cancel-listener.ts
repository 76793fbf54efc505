/** Listens on `${REDIS_PREFIX}runs:cancel` and calls the handler registered for the run it names, if held here. */
import { Redis } from 'ioredis';
import { RUN_CANCEL_CHANNEL, runCancelSchema } from '@conduit/contracts';
import type { Logger } from 'pino';

export class CancelListener {
  private readonly handlers = new Map<string, () => void>();
  private subscriber: Redis | null = null;
  readonly channel: string;

  constructor(
    private readonly redisUrl: string,
    redisPrefix: string,
    private readonly logger: Logger,
  ) {
    this.channel = `${redisPrefix}${RUN_CANCEL_CHANNEL}`;
  }

  async start(): Promise<void> {
    const subscriber = new Redis(this.redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
    subscriber.on('error', (err) => this.logger.warn({ err }, 'cancel subscriber connection error'));
    subscriber.on('message', (_channel: string, text: string) => this.onMessage(text));
    await subscriber.connect();
    await subscriber.subscribe(this.channel);
    this.subscriber = subscriber;
  }

  /** Returns the unregister function. */
  register(runId: string, onCancel: () => void): () => void {
    this.handlers.set(runId, onCancel);
    return () => {
      if (this.handlers.get(runId) === onCancel) this.handlers.delete(runId);
    };
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  private onMessage(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const message = runCancelSchema.safeParse(parsed);
    if (!message.success) {
      this.logger.warn({ channel: this.channel }, 'ignored a malformed cancel message');
      return;
    }
    this.handlers.get(message.data.run_id)?.();
  }
}
