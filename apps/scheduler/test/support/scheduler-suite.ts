import { afterAll, beforeAll } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { QueueName } from '@conduit/contracts';
import { ServiceSuite } from '@conduit/testing';
import { dropSchema, newSchemaName, openSchema } from './db.js';
import { REDIS_URL } from './redis.js';
import { PipelineStore, startStubCatalog } from './stub-catalog.js';
import { SchedulerCaller, startScheduler, type SchedulerUnderTest } from './scheduler-app.js';

type SchedulerOverrides = Parameters<typeof startScheduler>[2];

/** What a scheduler suite starts before its tests. */
export interface SchedulerSuiteOptions {
  /** The settings of the scheduler replica the suite starts; `false` starts none (the tests start their own). */
  scheduler?: SchedulerOverrides | false;
  /** The queues the tests read or feed, opened on the suite's prefix. */
  queues?: readonly QueueName[];
}

/** The test kit's suite with the scheduler's own: a stub catalog answering from `store`, and a caller. */
export class SchedulerSuite extends ServiceSuite<SchedulerUnderTest> {
  readonly store = new PipelineStore();
  /** Connects on its first call. */
  readonly caller = this.client(new SchedulerCaller(this.prefix));
  catalog!: INestMicroservice;

  constructor({ scheduler, queues }: SchedulerSuiteOptions) {
    super({
      who: 'scheduler',
      schemas: { newSchemaName, openSchema, dropSchema },
      ...(queues ? { queues } : {}),
      ...(scheduler === false ? {} : { startApp: (ds, prefix) => startScheduler(ds, prefix, scheduler) }),
    });
  }

  /** The suite's scheduler replica. */
  get scheduler(): SchedulerUnderTest {
    return this.app;
  }

  protected override async startFixtures(): Promise<void> {
    this.fixture(this.store.connect(REDIS_URL, this.prefix));
    this.catalog = this.fixture(await startStubCatalog(REDIS_URL, this.prefix, this.store));
  }
}

/** Registers the suite's beforeAll and afterAll, and answers its handles. */
export function useSchedulerSuite(options: SchedulerSuiteOptions = {}): SchedulerSuite {
  const suite = new SchedulerSuite(options);
  beforeAll(() => suite.start());
  afterAll(() => suite.stop());
  return suite;
}
