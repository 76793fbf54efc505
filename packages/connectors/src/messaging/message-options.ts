/**
 * Node-level options of a queue or stream read (they arrive in the ReadRequest): a read is bounded so a run ends.
 * It stops after `max_messages`, or when no message arrived for `wait_ms`.
 */
import { ConnectorError } from '../connector-error.js';
import type { ReadRequest } from '../types.js';

export interface BoundedReadOptions {
  /** Default 1000, at most 1,000,000. */
  max_messages: number;
  /** Idle wait in ms; default 1000, at most 300000. */
  wait_ms: number;
  /** Rows per yielded batch; default 5000. */
  batch_size: number;
}

function integer(req: ReadRequest, name: string, fallback: number, min: number, max: number): number {
  const value = req[name] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ConnectorError(`${name} must be an integer from ${min} to ${max}`, 'config_error');
  }
  return value;
}

export function parseBoundedRead(req: ReadRequest): BoundedReadOptions {
  return {
    max_messages: integer(req, 'max_messages', 1000, 1, 1_000_000),
    wait_ms: integer(req, 'wait_ms', 1000, 0, 300_000),
    batch_size: integer(req, 'batchSize', 5000, 1, 1_000_000),
  };
}

/** A required string option of the request (or the fallback from the connector config). */
export function requiredName(req: Record<string, unknown>, name: string, fallback?: string): string {
  const value = req[name] ?? fallback;
  if (typeof value !== 'string' || value === '')
    throw new ConnectorError(`this connector needs ${name}`, 'config_error');
  return value;
}
