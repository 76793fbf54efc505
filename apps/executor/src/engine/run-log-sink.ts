/** Where the engine writes run log lines (the worker ships them to the logs queue in batches). */
export type RunLogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface RunLogSink {
  write(level: RunLogLevel, nodeId: string | null, message: string): void;
}
