import { afterAll, beforeAll } from '@jest/globals';
import type { QueueName } from '@conduit/contracts';
import { ServiceSuite } from '@conduit/testing';
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
