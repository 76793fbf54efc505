export type {
  ConnectorCategory,
  ConnectorRole,
  JsonSchema,
  ConnectorTypeInfo,
  ErrorClass,
  TestCheck,
  TestResult,
  Row,
  ReadRequest,
  WriteMode,
  WriteRequest,
  CsvChunk,
  ColumnSpec,
  DuckDBTable,
  TypedReadResult,
  TestOptions,
  ExecuteOptions,
  ConnectorDriver,
  DuckdbLimits,
} from './types.js';
export { ConnectorError } from './connector-error.js';
export {
  ConnectorPools,
  DEFAULT_CONNECTOR_POOL_IDLE_MS,
  DEFAULT_CONNECTOR_POOL_MAX,
  DEFAULT_CONNECTOR_POOLS_MAX,
  type ConnectorPoolOptions,
  type PoolScope,
} from './pools/connector-pools.js';
export { connectorEnvironment, type ConnectorEnvironment } from './environment.js';
export { DEFAULT_SCRATCH_LIMIT_BYTES, DEFAULT_TRANSFER_BUFFERS, type TransferBuffers } from './transfer-buffers.js';
export { checkUserSelect, NOT_VALID_SQL, prepareUserSql, userSqlProblem, type UserSqlKind } from './duckdb/user-sql.js';
export { isolatedBind, isolatedSqlProblem } from './duckdb/sql-check/isolated-check.js';
export { heapSizedSelect, plainValue, rowBatches, type HeapBound, type PlainValue } from './duckdb/result-rows.js';
export { readAll } from './duckdb/read-all.js';
export {
  bindColumnsOf,
  bindInputOf,
  bindUserSql,
  isDeclarableType,
  withSqlBinder,
  type BindColumn,
  type BindInput,
  type BindOutcome,
  type SqlBinder,
} from './duckdb/sql-binder.js';
export { lockDown, preparableConfig, sandboxedConfig } from './duckdb/sandbox.js';
export { connectorTypes, getDriver } from './registry.js';
export { configWithDefaults, validateConnectorConfig, type ConfigProblem } from './config-validation.js';
export {
  networkPolicyProblems,
  isNetworkConnectorType,
  type NetworkPolicyProblem,
} from './network/connector-targets.js';
export { refineAllowedNetworks, refusalReason, type NetworkPolicy } from './network/network-policy.js';
export { assertNotPlatform, knowPlatformServices } from './network/platform-services.js';
export {
  SECRET_MASK,
  maskSecrets,
  mergeSecrets,
  encryptSecrets,
  decryptSecrets,
  decryptReadableSecrets,
  resealSecrets,
  parseSecretsKey,
  secretsToResend,
  movedLocationFields,
  type SecretOwner,
} from './secrets.js';
export { scrubbedValue, scrubSecrets, secretScrubber } from './secret-scrub.js';
export { runChecks, DEFAULT_TEST_TIMEOUT_MS, type CheckStep, type CheckPlan } from './connection-checks.js';
export {
  chatCompletion,
  listModels,
  ChatCompletionHttpError,
  type ChatCompletionOptions,
  type ChatMessage,
  type ChatCompletionRequest,
  type ChatCompletionResult,
} from './openai/chat-completion.js';
export { parseOpenAiConfig, type OpenAiConfig } from './openai/openai.config.js';
