/**
 * The platform's own PostgreSQL server (DATABASE_URL) and Redis (REDIS_URL), which no connector may reach whatever
 * the network settings: a tenant with either would read every tenant's keys, secrets and RPC traffic. The whole
 * PostgreSQL server, not only the platform's database: a role that works there (the platform's own, often a
 * superuser) reads the platform's files and other databases from any database of the server (pg_read_binary_file,
 * COPY ... TO PROGRAM, dblink). Compared after DNS resolution: the same port, and an address of the platform's host,
 * or both local to this machine.
 */
import { lookup } from 'node:dns/promises';
import { networkInterfaces } from 'node:os';
import { ConnectorError } from '../connector-error.js';
import { embeddedIpv4, parseIp, type IpAddress } from './ip-address.js';

export const PLATFORM_SERVICE_CODE = 'platform_service';

interface PlatformService {
  what: 'database' | 'redis';
  host: string;
  port: number;
}

function urlOf(text: string | undefined): URL | null {
  if (text === undefined || text.trim() === '') return null;
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/**
 * Names the platform's own PostgreSQL and Redis as the service's validated config has them, where this process's
 * environment does not already: a service started without DATABASE_URL or REDIS_URL works on its config's defaults,
 * which connectors must not reach either. Called once at start by the services whose connectors connect.
 */
export function knowPlatformServices(config: { DATABASE_URL: string; REDIS_URL: string }): void {
  process.env['DATABASE_URL'] ??= config.DATABASE_URL;
  process.env['REDIS_URL'] ??= config.REDIS_URL;
}

/** The platform's services as this process's environment names them. */
export function platformServices(env: NodeJS.ProcessEnv = process.env): PlatformService[] {
  const services: PlatformService[] = [];
  const db = urlOf(env['DATABASE_URL']);
  if (db) {
    // libpq defaults: a missing host is the local socket. The refusal names no database (nor which server it is).
    const host = decodeURIComponent(db.hostname).replace(/^\[|\]$/g, '') || db.searchParams.get('host') || 'localhost';
    services.push({ what: 'database', host: host.startsWith('/') ? 'localhost' : host, port: Number(db.port || 5432) });
  }
  const redis = urlOf(env['REDIS_URL']);
  if (redis)
    services.push({
      what: 'redis',
      host: redis.hostname.replace(/^\[|\]$/g, '') || 'localhost',
      port: Number(redis.port || 6379),
    });
  return services;
}

/** The IPv4 address an IPv6 form reaches, so `::ffff:127.0.0.1` and `127.0.0.1` compare equal. */
function canonical(address: IpAddress): string {
  const inner = embeddedIpv4(address) ?? address;
  return `${inner.family}:${inner.bytes.join('.')}`;
}

function isLocal(address: IpAddress): boolean {
  const inner = embeddedIpv4(address) ?? address;
  const b = inner.bytes;
  if (inner.family === 4 && (b[0] === 127 || b[0] === 0)) return true;
  if (inner.family === 6 && b.subarray(0, 15).every((x) => x === 0) && (b[15] === 0 || b[15] === 1)) return true;
  const own = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((i) => parseIp(i.address));
  return own.some((ip) => ip !== null && canonical(ip) === canonical(inner));
}

async function addressesOf(host: string): Promise<IpAddress[]> {
  const literal = parseIp(host);
  if (literal) return [literal];
  const found = await lookup(host, { all: true }).catch(() => []);
  return found.map((a) => parseIp(a.address)).filter((ip): ip is IpAddress => ip !== null);
}

async function sameServer(service: PlatformService, address: IpAddress): Promise<boolean> {
  const platform = await addressesOf(service.host);
  if (platform.some((ip) => canonical(ip) === canonical(address))) return true;
  return isLocal(address) && (platform.length === 0 ? service.host === 'localhost' : platform.some(isLocal));
}

export interface PlatformTarget {
  connectorType: string;
  address: string;
  port: number;
  database?: string;
}

/**
 * Throws when the target is the platform's Redis or the platform's PostgreSQL server, for every connector type (an
 * http request to Redis's port is a classic SSRF) and every database of that server.
 */
export async function assertNotPlatform(target: PlatformTarget, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const address = parseIp(target.address);
  if (!address) return;
  for (const service of platformServices(env)) {
    if (service.port !== target.port) continue;
    if (!(await sameServer(service, address))) continue;
    throw new ConnectorError(
      service.what === 'redis'
        ? `refused: ${target.address} port ${target.port} is the platform's own Redis, which connectors may never reach, whatever the network settings`
        : `refused: ${target.address} port ${target.port} is the platform's own PostgreSQL server, which connectors may never reach, whatever the network settings, nor any of its databases; keep the data connectors read on another server`,
      'config_error',
      { code: PLATFORM_SERVICE_CODE },
    );
  }
}
