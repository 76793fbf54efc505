import { Redis } from 'ioredis';
import { RUN_CANCEL_CHANNEL } from '@conduit/contracts';

/** Tells the executor holding a run to stop it (Redis pub/sub: only executors listening now receive it). */
export class RunCancelPublisher {
  private readonly publisher: Redis;
  private readonly channel: string;

  constructor(settings: { redisUrl: string; redisPrefix: string }) {
    this.publisher = new Redis(settings.redisUrl, { maxRetriesPerRequest: 2 });
    // An outage fails publish(), whose caller says so (ioredis reconnects by itself): not an unhandled error event.
    this.publisher.on('error', () => undefined);
    this.channel = `${settings.redisPrefix}${RUN_CANCEL_CHANNEL}`;
  }

  async publish(runId: string): Promise<void> {
    await this.publisher.publish(this.channel, JSON.stringify({ run_id: runId }));
  }

  async close(): Promise<void> {
    await this.publisher.quit().catch(() => this.publisher.disconnect());
  }
}
