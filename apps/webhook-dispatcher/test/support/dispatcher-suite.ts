import { afterAll, beforeAll } from '@jest/globals';
import type { QueueName } from '@conduit/contracts';
import { Receiver, ServiceSuite } from '@conduit/testing';
import { dropSchema, newSchemaName, openSchema } from './db.js';
import { DispatcherCaller, startDispatcher, type DispatcherUnderTest } from './dispatcher-app.js';
import { EventPublisher } from './events.js';

/** What a dispatcher suite starts before its tests. */
export interface DispatcherSuiteOptions {
  /** Settings of the dispatcher replica the suite starts; `false` starts none (the tests start their own). */
  dispatcher?: Parameters<typeof startDispatcher>[2] | false;
  /** The queues the tests read, opened on the suite's prefix. */
  queues?: readonly QueueName[];
}

/**
 * The test kit's suite with the dispatcher's own: a receiver for the deliveries, a publisher of the events that
 * make them, and a caller.
 */
export class DispatcherSuite extends ServiceSuite<DispatcherUnderTest> {
  /** Connects on its first call. */
  readonly caller = this.client(new DispatcherCaller(this.prefix));
  readonly events = this.client(new EventPublisher(this.prefix));
  readonly receiver = new Receiver();

  constructor({ dispatcher, queues }: DispatcherSuiteOptions) {
    super({
      who: 'webhook-dispatcher',
      prefixName: 'webhooks',
      schemas: { newSchemaName, openSchema, dropSchema },
      ...(queues ? { queues } : {}),
      ...(dispatcher === false ? {} : { startApp: (ds, prefix) => startDispatcher(ds, prefix, dispatcher) }),
    });
  }

  /** The suite's dispatcher replica. */
  get dispatcher(): DispatcherUnderTest {
    return this.app;
  }

  protected override async startFixtures(): Promise<void> {
    await this.receiver.start();
    this.fixture({ close: () => this.receiver.stop() });
  }
}

/** Registers the suite's beforeAll and afterAll, and answers its handles. */
export function useDispatcherSuite(options: DispatcherSuiteOptions = {}): DispatcherSuite {
  const suite = new DispatcherSuite(options);
  beforeAll(() => suite.start());
  afterAll(() => suite.stop());
  return suite;
}
