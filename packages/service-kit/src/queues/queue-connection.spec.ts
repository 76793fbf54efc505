import { RECONNECT_MAX_DELAY_MS, queueConnectionOptions, reconnectDelay } from './queue-connection.js';

describe('queue connection', () => {
  it('reconnects within a second whatever the number of attempts, unlike BullMQ default of up to 20 s', () => {
    expect([1, 2, 5, 10, 30, 1000].map(reconnectDelay)).toEqual([
      100,
      200,
      500,
      RECONNECT_MAX_DELAY_MS,
      RECONNECT_MAX_DELAY_MS,
      RECONNECT_MAX_DELAY_MS,
    ]);
  });

  it('keeps blocking commands waiting for the reconnect', () => {
    expect(queueConnectionOptions('redis://127.0.0.1:6379')).toMatchObject({
      url: 'redis://127.0.0.1:6379',
      maxRetriesPerRequest: null,
    });
  });
});
