import { QueryFailedError } from 'typeorm';
import { QUEUES } from '@conduit/contracts';
import { OUTAGE_BACKOFF, QUEUE_JOB_OPTIONS, outageBackoff } from './job-options.js';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('outageBackoff', () => {
  it('tries again 1 s, 2 s, 4 s, then every 5 s while our own infrastructure is down, for as long as it lasts', () => {
    expect([1, 2, 3, 4, 5, 100, 10_000].map((n) => outageBackoff(n, OUTAGE_BACKOFF, refused))).toEqual([
      1000, 2000, 4000, 5000, 5000, 5000, 5000,
    ]);
    const down = new QueryFailedError(
      'select 1',
      [],
      Object.assign(new Error('the database system is shutting down'), { code: '57P03' }),
    );
    expect(outageBackoff(50, OUTAGE_BACKOFF, down)).toBe(5000);
  });

  it('stops after eight tries for any other error (a bug, a bad message)', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    expect(outageBackoff(7, OUTAGE_BACKOFF, bug)).toBe(5000);
    expect(outageBackoff(8, OUTAGE_BACKOFF, bug)).toBe(-1);
    expect(outageBackoff(8, OUTAGE_BACKOFF, undefined)).toBe(-1);
  });

  it("is the policy of the queues whose messages must outlive an outage of their consumer's database", () => {
    for (const queue of [QUEUES.eventsScheduler, QUEUES.eventsMonitoring, QUEUES.eventsWebhooks, QUEUES.logs]) {
      expect(QUEUE_JOB_OPTIONS[queue]).toMatchObject({ backoff: { type: OUTAGE_BACKOFF } });
      expect(QUEUE_JOB_OPTIONS[queue].attempts).toBeGreaterThan(17_000);
    }
    // A run is never retried by the queue: a failed run is a failed run.
    expect(QUEUE_JOB_OPTIONS[QUEUES.runs].attempts).toBe(1);
  });
});
