// A schema'd pub/sub channel on the real Redis: parsed messages reach the handler, a malformed one is logged and
// handed to onMalformed only, onReady runs once the subscription is made, close stops delivery.
import pino from 'pino';
import { z } from 'zod';
import { ChannelSubscription } from '../src/channels/channel-subscription.js';
import { connectRedis, REDIS_URL } from './servers.js';
import { useRedisPrefix } from './support/redis-prefix.js';

const pingSchema = z.strictObject({ n: z.number().int() });

/** Polls until `check` holds; a subscription's delivery has no event of its own to await. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('ChannelSubscription', () => {
  const { redisPrefix, closeFirst } = useRedisPrefix();

  it('hands parsed messages to the handler and malformed ones to onMalformed, from ready until closed', async () => {
    const channel = `${redisPrefix}pings`;
    const got: number[] = [];
    let malformed = 0;
    let ready = 0;
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
    const subscription = new ChannelSubscription({
      redisUrl: REDIS_URL,
      channel,
      schema: pingSchema,
      name: 'ping',
      logger,
      onMessage: ({ n }) => void got.push(n),
      onMalformed: () => void (malformed += 1),
      onReady: () => void (ready += 1),
    });
    closeFirst(() => subscription.close());
    await subscription.start();
    expect(ready).toBe(1);

    const publisher = await connectRedis();
    try {
      for (const text of [JSON.stringify({ n: 1 }), 'not json', JSON.stringify({ n: 'two' }), JSON.stringify({ n: 3 })])
        await publisher.publish(channel, text);
      await until(() => got.length === 2 && malformed === 2, 'two messages and two malformed ones');
      expect(got).toEqual([1, 3]);
      expect(warnings.filter((w) => w.includes('ignored a malformed ping message'))).toHaveLength(2);

      await subscription.close();
      expect(await publisher.publish(channel, JSON.stringify({ n: 4 }))).toBe(0);
    } finally {
      publisher.disconnect();
    }
  });
});
