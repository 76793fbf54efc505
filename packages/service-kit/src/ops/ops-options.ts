import type { Registry } from 'prom-client';
import type { ReadinessCheck } from './readiness.js';

export interface OpsModuleOptions {
  /** Served on `GET /metrics`; without it there is no `/metrics` route. */
  registry?: Registry;
  /** Run by `GET /readyz`; names must be unique. */
  checks: ReadinessCheck[];
  /** Per-check limit in milliseconds. Default: 2000. */
  checkTimeoutMs?: number;
}

export const OPS_OPTIONS = Symbol('OPS_OPTIONS');

/** Paths the module serves; exclude them from a global prefix (`setGlobalPrefix('v2', { exclude: OPS_PATHS })`). */
export const OPS_PATHS = ['healthz', 'readyz', 'metrics'] as const;
