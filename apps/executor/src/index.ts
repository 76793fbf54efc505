// What other packages (tests, e2e, bench, the start scripts) may use from the executor.
export { executeRun, type RunEngineOptions, type RunOutcome, type RunOutcomeStatus } from './engine/run-engine.js';
export type { RunLogSink, RunLogLevel } from './engine/run-log-sink.js';
export { RunWorkspace, type WorkspaceOptions } from './data/run-workspace.js';
export { WorkspaceDatabase } from './data/workspace-database.js';
export { WorkspacePool, type WorkspaceSource } from './data/workspace-pool.js';
export { DEFAULT_RUN_MEMORY_LIMIT, parseSize, runMemory, type RunMemory } from './data/run-memory.js';
export { executorEnvSchema, loadExecutorConfig, type ExecutorConfig } from './config.js';
export { ExecutorRuntime, type ExecutorRuntimeOptions } from './runs/executor-runtime.js';
export { RunProcessor, type RunProcessorDeps, type RunJobResult } from './runs/run.processor.js';
export { describeColumns as nodeColumnsOf } from './engine/node-columns.js';
