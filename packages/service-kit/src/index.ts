export { ConfigError, LOG_LEVELS, baseEnv, envPort, loadConfig, type LogLevelName } from './config.js';
export { REDACTED, SENSITIVE_KEYS, createLogger, type CreateLoggerOptions } from './logger.js';
export { createAccessLog, type AccessFields, type AccessLog, type AccessLogOptions } from './access-log.js';
export { NestPinoLogger } from './nest-pino-logger.js';
export { createMetricsRegistry } from './metrics.js';
export { BucketHistogram, HistogramSeries, type BucketHistogramOptions } from './bucket-histogram.js';
export { OpsModule } from './ops/ops.module.js';
export { OPS_PATHS, type OpsModuleOptions } from './ops/ops-options.js';
export {
  DEFAULT_CHECK_TIMEOUT_MS,
  runReadinessChecks,
  type ReadinessCheck,
  type ReadinessReport,
} from './ops/readiness.js';
export {
  createServiceDataSource,
  schemaOf,
  serviceDataSourceOptions,
  type ServiceClass,
  type ServiceDataSourceOptions,
} from './database.js';
export {
  serviceDatabaseModule,
  serviceTypeOrmOptions,
  type ServiceDatabase,
  type ServiceDatabaseOptions,
} from './database-module.js';
export { TypeOrmPinoLogger } from './typeorm-pino-logger.js';
export { migrate } from './migrate.js';
export { runMigrateCommand, type MigrateCommand } from './migrate-command.js';
export { logReseal, resealRows, type ResealOutcome, type ResealPlan } from './persistence/reseal-rows.js';
export { dataSourceReadinessCheck, redisReadinessCheck } from './readiness-checks.js';
export { RpcRoute, type RpcController } from './rpc/rpc-route.decorator.js';
export { reportUnexpected } from './rpc/unexpected-error.js';
export { COMMIT_MARGIN_MS, DeadlinePassedError, assertBeforeDeadline } from './rpc/deadline.js';
export {
  createOnce,
  idempotencyColumns,
  type CreateContext,
  type CreateOnceOptions,
  type IdempotentRow,
} from './idempotency/create-once.js';
export { isForeignKeyViolation, isLockNotAvailable, isUniqueViolation } from './persistence/pg-errors.js';
export { entityValues } from './persistence/entity-values.js';
export { preparedQuery } from './persistence/prepared-query.js';
export { newId } from './ids/new-id.js';
export { etagOf } from './resources/etag.js';
export { assertIfMatch } from './resources/if-match.js';
export { cursorAfter } from './resources/cursor.js';
export { PAGE_BYTES, fitPage, type SizedRow } from './resources/page-bytes.js';
export { notFound } from './resources/not-found.js';
export { TenantSlots } from './fairness/tenant-slots.js';
export { runService, startRpcService, type RpcServiceOptions } from './boot/rpc-service.js';
export {
  UNAVAILABLE_RETRY_AFTER_S,
  asDependencyUnavailable,
  dependencyUnavailable,
  unavailableDependencyOf,
} from './errors/dependency-errors.js';
export { StartupError, redactedUrl, startupFailureLine } from './startup/startup-error.js';
export { SECRET_GENERATORS, wellKnownSecrets } from './startup/well-known-secrets.js';
export { bootConfig, checkServiceConfig, isLocalDevelopment } from './startup/service-config.js';
export { preflight, type ListenPort, type PreflightOptions } from './startup/preflight.js';
export { queueConnectionOptions, reconnectDelay, type QueueConnectionOptions } from './queues/queue-connection.js';
export { bullPrefix, type QueueLocation } from './queues/queue-connection.js';
export { OUTAGE_BACKOFF, QUEUE_JOB_OPTIONS, outageBackoff } from './queues/job-options.js';
export { QueueProducer, QueueProducers, type ProducedJob, type ProducedJobOptions } from './queues/queue-producer.js';
export { JobDataInvalidError } from './queues/job-data-invalid-error.js';
export { unbatchedJobs, type QueuedJob } from './queues/unbatched-jobs.js';
export { GroupedAdds } from './queues/grouped-adds.js';
export { ChannelSubscription, type ChannelSubscriptionOptions } from './channels/channel-subscription.js';
export {
  JobConsumer,
  QueueWorkers,
  missingHandlers,
  type ConsumerOptions,
  type JobHandlers,
} from './queues/job-consumer.js';
export { OutboxRelay, addOutboxJobs, type OutboxJob, type OutboxOptions } from './queues/outbox-relay.js';
export { QueuesModule, type QueuesModuleOptions } from './queues/queues.module.js';
export { JOB_TRACE_KEY, splitJobTrace, withJobTrace, type TracedJobData } from './queues/job-trace.js';
export { startTracing, tracingRequested, type Tracing } from './tracing/start-tracing.js';
export {
  SpanKind,
  SpanStatusCode,
  contextFromCarrier,
  endSpan,
  inSpan,
  traceCarrierOf,
  type Context,
  type Span,
  type TraceCarrier,
} from './tracing/spans.js';
export { AGAIN, GroupCommit, failingAlone } from './batching/group-commit.js';
export { TenantGenerations, type TenantGenerationsOptions } from './generations/tenant-generations.js';
export { WEBHOOK_TENANTS_KEY, WebhookTenants, type WebhookTenantsOptions } from './webhook-tenants/webhook-tenants.js';
export { LruCopies, copyKeyOf, type LruCopiesOptions } from './caching/lru-copies.js';
