import { Inject, Injectable, Module, type DynamicModule, type OnModuleInit, type Provider } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import { BullModule, getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { QueueName } from '@conduit/contracts';
import { bullPrefix, queueConnectionOptions, type QueueLocation } from './queue-connection.js';
import { QUEUE_JOB_OPTIONS } from './job-options.js';
import { QueueProducer, QueueProducers } from './queue-producer.js';
import { JobConsumer, QueueWorkers, missingHandlers } from './job-consumer.js';
import { OutboxRelay, type OutboxOptions } from './outbox-relay.js';
import { QUEUES_CONSUMED, QUEUES_LOGGER, QUEUES_OUTBOX } from './queue-tokens.js';

export interface QueuesModuleOptions extends QueueLocation {
  logger: Logger;
  /** Queues the service adds to or reads (a QueueProducer each, from QueueProducers). Default: none. */
  produce?: readonly QueueName[];
  /** Queues the service consumes: its JobConsumer providers must handle every job name of each. Default: none. */
  consume?: readonly QueueName[];
  /** The service's outbox, relayed by the OutboxRelay provider. Default: no outbox. */
  outbox?: OutboxOptions;
}

/** Refuses to start a service whose consumers miss a job name of a queue it consumes (before any worker runs). */
@Injectable()
class QueueHandlersCheck implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    @Inject(QUEUES_CONSUMED) private readonly consume: readonly QueueName[],
  ) {}

  onModuleInit(): void {
    const consumers = this.discovery
      .getProviders()
      .map((wrapper): unknown => wrapper.instance)
      .filter((instance): instance is JobConsumer<QueueName> => instance instanceof JobConsumer);
    const problems = missingHandlers(this.consume, consumers);
    if (problems.length > 0) throw new Error(`queue consumers incomplete: ${problems.join('; ')}`);
  }
}

/**
 * Every service's BullMQ wiring in one place: the connection (fast reconnect), the prefix, each queue's default
 * job options and retention (job-options.ts), a typed producer per declared queue, the consumers' worker factory,
 * the start-up handler check and, for a service with an outbox, the relay. Queues are @nestjs/bullmq's, closed by
 * it at application shutdown, after the consumers and the relay have stopped (onModuleDestroy).
 */
@Module({})
export class QueuesModule {
  static forRoot(opts: QueuesModuleOptions): DynamicModule {
    const produce = [...new Set(opts.produce ?? [])];
    const outbox: Provider[] = opts.outbox ? [{ provide: QUEUES_OUTBOX, useValue: opts.outbox }, OutboxRelay] : [];
    return {
      module: QueuesModule,
      global: true,
      imports: [
        DiscoveryModule,
        BullModule.forRoot({ connection: queueConnectionOptions(opts.redisUrl), prefix: bullPrefix(opts.redisPrefix) }),
        ...(produce.length > 0
          ? [BullModule.registerQueue(...produce.map((name) => ({ name, defaultJobOptions: QUEUE_JOB_OPTIONS[name] })))]
          : []),
      ],
      providers: [
        { provide: QUEUES_LOGGER, useValue: opts.logger },
        { provide: QUEUES_CONSUMED, useValue: [...(opts.consume ?? [])] },
        { provide: QueueWorkers, useValue: new QueueWorkers(opts) },
        {
          provide: QueueProducers,
          useFactory: (...queues: Queue[]) =>
            new QueueProducers(queues.map((queue, i) => new QueueProducer(produce[i]!, queue))),
          inject: produce.map((name) => getQueueToken(name)),
        },
        QueueHandlersCheck,
        ...outbox,
      ],
      exports: [QueueWorkers, QueueProducers, ...(opts.outbox ? [OutboxRelay] : [])],
    };
  }
}
