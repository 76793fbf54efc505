// What other packages (tests, e2e, bench, the start scripts) may use from the monitoring service.
export { AppModule, type AppModuleOptions } from './app.module.js';
export type { MonitoringDeps } from './monitoring-core.module.js';
export { monitoringSettings, type MonitoringSettings } from './monitoring-settings.js';
export { monitoringEnvSchema, loadMonitoringConfig, type MonitoringConfig } from './config.js';
export {
  MONITORING_ENTITIES,
  MONITORING_MIGRATIONS,
  monitoringDatabaseOptions,
  createMonitoringDataSource,
  type MonitoringDataSourceOptions,
} from './database/monitoring-data-source.js';
export { MonitoringMetrics } from './telemetry/monitoring-metrics.js';
export { MonitoringEvents, MAX_EVENT_BATCH, type EventOutcome } from './events/monitoring-events.js';
export { MonitoringEventsWorker } from './events/monitoring-events.worker.js';
export { recordAndApply, type StatementResult } from './events/event-statement.js';
export { alertRules, CRITICAL_AFTER_FAILURES } from './alerts/alert-rules.js';
export { AlertsService } from './alerts/alerts.service.js';
export { MetricsService } from './metrics/metrics.service.js';
export { bucketSizeFor, MAX_BUCKETS } from './metrics/bucket-size.js';
export { RunLogsService, RUN_END_GRACE_MS, type RunRef, type TailFilter } from './logs/run-logs.service.js';
export { RunLogsWorker } from './logs/run-logs.worker.js';
export { LogRetention, type CleanupResult } from './logs/log-retention.js';
export { insertRunLogBatches } from './logs/run-log-writer.js';
export { RunLogStore, MAX_LOG_BATCHES } from './logs/run-log-store.js';
export { seqOf, gapFreePrefix, LINES_PER_ATTEMPT } from './logs/run-log-seq.js';
