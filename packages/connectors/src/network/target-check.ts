/**
 * Applies the network policy and the platform-service rule to a connector's target after DNS resolution, on every
 * resolved address. Drivers then connect to the address that was checked (not the name again), so a DNS answer that
 * changes in between (rebinding) cannot swap in a refused address; TLS keeps verifying the original host name.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ConnectorError } from '../connector-error.js';
import { currentNetworkPolicy, policyError, refusalReason } from './network-policy.js';
import { assertNotPlatform } from './platform-services.js';

export interface NetworkTarget {
  /** The connector's type, named in messages: the platform's PostgreSQL server and Redis are refused to every type. */
  connectorType: string;
  /** As configured: a name or an IP literal (IPv6 with or without brackets). */
  host: string;
  port: number;
  /** The database a postgres connector names. */
  database?: string;
}

/** The host and port an http(s) URL connects to. */
export function urlTarget(connectorType: string, text: string): NetworkTarget {
  const url = new URL(text);
  return {
    connectorType,
    host: bareHost(url.hostname),
    port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
  };
}

export const bareHost = (host: string): string => host.replace(/^\[|\]$/g, '');

/** Every address `host` resolves to (just itself for an IP literal). */
export async function resolveAddresses(host: string): Promise<string[]> {
  const bare = bareHost(host);
  if (isIP(bare)) return [bare];
  return (await lookup(bare, { all: true, order: 'verbatim' })).map((a) => a.address);
}

/** Throws a config_error ConnectorError when any address is refused; the message never depends on the port's state. */
export async function assertAddressesAllowed(target: NetworkTarget, addresses: readonly string[]): Promise<void> {
  const policy = currentNetworkPolicy();
  for (const address of addresses) {
    const reason = refusalReason(address, policy);
    if (reason) throw policyError(bareHost(target.host), reason);
  }
  for (const address of addresses) await assertNotPlatform({ ...target, address });
}

/** Resolves and checks the target; answers the address to connect to. */
export async function checkedAddress(target: NetworkTarget): Promise<string> {
  const addresses = await resolveAddresses(target.host);
  await assertAddressesAllowed(target, addresses);
  const first = addresses[0];
  if (first === undefined) throw Object.assign(new Error(`no address for ${target.host}`), { code: 'ENOTFOUND' });
  return first;
}

/** The TLS server name for a host: the configured name, none for an IP literal (RFC 6066 forbids IPs in SNI). */
export const tlsServerName = (host: string): string | undefined => (isIP(bareHost(host)) ? undefined : bareHost(host));

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:net, node:http(s) agents and the AWS SDK: the connection goes to an address that was checked.
 * IP literals do not go through `lookup`, so callers check those first with `checkedAddress`.
 */
export function guardedLookup(target: Omit<NetworkTarget, 'host'>) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      assertAddressesAllowed(
        { ...target, host: hostname },
        addresses.map((a) => a.address),
      ).then(
        () => {
          if (options.all) return callback(null, addresses);
          const first = addresses[0];
          if (!first)
            return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
          callback(null, first.address, first.family);
        },
        (refused: unknown) =>
          callback(
            refused instanceof ConnectorError ? refused : new ConnectorError(String(refused), 'config_error'),
            [],
          ),
      );
    });
  };
}
