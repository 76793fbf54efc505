/** Listens on `${REDIS_PREFIX}runs:cancel` and calls the handler registered for the run it names, if held here. */
import { RUN_CANCEL_CHANNEL, runCancelSchema, type RunCancel } from '@conduit/contracts';
import { ChannelSubscription } from '@conduit/service-kit';
import type { Logger } from 'pino';

export class CancelListener {
  private readonly handlers = new Map<string, () => void>();
  private readonly subscription: ChannelSubscription<RunCancel>;

  constructor(redisUrl: string, redisPrefix: string, logger: Logger) {
    this.subscription = new ChannelSubscription({
      redisUrl,
      channel: `${redisPrefix}${RUN_CANCEL_CHANNEL}`,
      schema: runCancelSchema,
      name: 'cancel',
      logger,
      onMessage: ({ run_id }) => this.handlers.get(run_id)?.(),
    });
  }

  get channel(): string {
    return this.subscription.channel;
  }

  start(): Promise<void> {
    return this.subscription.start();
  }

  /** Returns the unregister function. */
  register(runId: string, onCancel: () => void): () => void {
    this.handlers.set(runId, onCancel);
    return () => {
      if (this.handlers.get(runId) === onCancel) this.handlers.delete(runId);
    };
  }

  close(): Promise<void> {
    return this.subscription.close();
  }
}
