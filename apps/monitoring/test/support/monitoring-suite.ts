import { afterAll, beforeAll } from '@jest/globals';
import { QUEUES, type QueueName } from '@conduit/contracts';
import { ServiceSuite, waitFor } from '@conduit/testing';
import { dropSchema, newSchemaName, openSchema } from './db.js';
import { MonitoringCaller, startMonitoring, type MonitoringUnderTest } from './monitoring-app.js';

/** What a monitoring suite starts before its tests. */
export interface MonitoringSuiteOptions {
  /** Settings of the monitoring replica the suite starts. */
  monitoring?: Parameters<typeof startMonitoring>[2];
  /** The queues the tests feed or read, opened on the suite's prefix. */
  queues?: readonly QueueName[];
}

/** The test kit's suite with a monitoring replica and a caller. */
export class MonitoringSuite extends ServiceSuite<MonitoringUnderTest> {
  /** Connects on its first call. */
  readonly caller = this.client(new MonitoringCaller(this.prefix));

  constructor({ monitoring, queues }: MonitoringSuiteOptions) {
    super({
      who: 'monitoring',
      schemas: { newSchemaName, openSchema, dropSchema },
      ...(queues ? { queues } : {}),
      startApp: (ds, prefix) => startMonitoring(ds, prefix, monitoring),
    });
  }

  /**
   * Publishes events on events.monitoring as the scheduler's relay does (job id = event id) and waits until each is
   * processed. Needs that queue in the options. An arrow, so tests may take it off the suite.
   */
  readonly publish = async (...events: { event_id: string; type: string }[]): Promise<void> => {
    const queue = this.queue(QUEUES.eventsMonitoring);
    for (const e of events) await queue.add(e.type, e, { jobId: e.event_id });
    await waitFor(
      async () => {
        const states = await Promise.all(events.map(async (e) => (await queue.getJob(e.event_id))?.getState()));
        return states.every((s) => s === 'completed');
      },
      { what: `${events.length} events processed` },
    );
  };

  /** The suite's monitoring replica. */
  get monitoring(): MonitoringUnderTest {
    return this.app;
  }
}

/** Registers the suite's beforeAll and afterAll, and answers its handles. */
export function useMonitoringSuite(options: MonitoringSuiteOptions = {}): MonitoringSuite {
  const suite = new MonitoringSuite(options);
  beforeAll(() => suite.start());
  afterAll(() => suite.stop());
  return suite;
}
