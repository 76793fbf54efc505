import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The monorepo root (deploy/test/support -> ../../..). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export function readRepoFile(path: string): string {
  return readFileSync(resolve(ROOT, path), 'utf8');
}

export interface ServiceInfo {
  name: string;
  /** The variable that moves its HTTP port, and the default. */
  portVar: string;
  port: number;
  /** Has tables, so a `dist/migrate.js` the migration step must run. */
  migrates: boolean;
}

/** Every service of Conduit: each must appear in compose and in every Kubernetes overlay. */
export const SERVICES: readonly ServiceInfo[] = [
  { name: 'gateway', portVar: 'GATEWAY_PORT', port: 3000, migrates: true },
  { name: 'catalog', portVar: 'CATALOG_PORT', port: 3101, migrates: true },
  { name: 'scheduler', portVar: 'SCHEDULER_PORT', port: 3102, migrates: true },
  { name: 'executor', portVar: 'EXECUTOR_PORT', port: 3103, migrates: false },
  { name: 'monitoring', portVar: 'MONITORING_PORT', port: 3104, migrates: true },
  { name: 'webhook-dispatcher', portVar: 'WEBHOOK_DISPATCHER_PORT', port: 3105, migrates: true },
];

/** Compose services and Kubernetes objects that are not one of SERVICES. */
export const COMPOSE_INFRA = ['postgres', 'redis', 'migrate'] as const;
