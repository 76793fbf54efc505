import { parse } from 'yaml';
import { readRepoFile } from './repo.js';

export interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  container_name?: string;
  ports?: unknown[];
  environment?: Record<string, string | number | boolean | null>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
  restart?: string;
  [field: string]: unknown;
}

export interface ComposeFile {
  name?: string;
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

export const COMPOSE_PATH = 'docker-compose.yml';

/** The compose file as Compose reads it: YAML merge keys (`<<: *anchor`) applied. */
export function loadCompose(): ComposeFile {
  return parse(readRepoFile(COMPOSE_PATH), { merge: true }) as ComposeFile;
}

/** What {@link interpolateDefaults} puts for `${VAR:?message}`: Compose refuses to start without VAR. */
export const FROM_ENVIRONMENT = '(required from the environment)';

/**
 * `${VAR:-default}` as Compose interpolates it with VAR unset: the local default. `${VAR:?message}` (Compose stops
 * with the message when VAR is unset) becomes {@link FROM_ENVIRONMENT}.
 */
export function interpolateDefaults(value: string): string {
  return value.replace(
    /\$\{([A-Z0-9_]+)(?:(:?\?)[^}]*|:?-([^}]*))?\}/g,
    (_m, _name: string, required?: string, fallback?: string) => (required ? FROM_ENVIRONMENT : (fallback ?? '')),
  );
}

/** "40s", "1m30s" -> milliseconds (the compose duration format). */
export function durationMs(value: string): number {
  const re = /(\d+(?:\.\d+)?)(ms|us|h|m|s)/g;
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001 };
  let total = 0;
  let matched = '';
  for (const [whole, n, u] of value.matchAll(re)) {
    total += Number(n) * unit[u!]!;
    matched += whole;
  }
  if (matched !== value) throw new Error(`not a compose duration: ${value}`);
  return total;
}
