// What other packages (tests, e2e, bench, the start scripts) may use from the webhook dispatcher.
export { AppModule, type AppModuleOptions } from './app.module.js';
export type { DispatcherDeps } from './dispatcher-core.module.js';
export { dispatcherSettings, DEFAULT_RETRY_SCHEDULE_MS, type DispatcherSettings } from './dispatcher-settings.js';
export { dispatcherEnvSchema, loadDispatcherConfig, type DispatcherConfig } from './config.js';
export {
  DISPATCHER_ENTITIES,
  DISPATCHER_MIGRATIONS,
  dispatcherDatabaseOptions,
  createDispatcherDataSource,
  type DispatcherDataSourceOptions,
} from './database/dispatcher-data-source.js';
// The bench reads the dispatcher's queues under the one prefix rule.
export { bullPrefix } from '@conduit/service-kit';
export { WebhooksService } from './webhooks/webhooks.service.js';
export { DeliveryPlanner, type PlannedAttempt } from './deliveries/delivery-planner.js';
export { AttemptRunner, type AttemptResult } from './deliveries/attempt-runner.js';
export { DeliverySweeper } from './deliveries/delivery-sweeper.js';
export { SourceEventsWorker, type SourceEventOutcome } from './deliveries/source-events.worker.js';
export { webhookPayloadOf, webhookKindOf } from './deliveries/event-payload.js';
export { SecretBox, parseSecretsKey } from './security/secret-box.js';
export { webhookAddressRefusal } from './security/address-policy.js';
export {
  resolveWebhookTarget,
  parseWebhookUrl,
  UrlRefusedError,
  type ResolvedTarget,
  type UrlPolicyOptions,
} from './security/url-policy.js';
export { signerFor, signedHeaders } from './security/webhook-signer.js';
