/**
 * Which addresses a network connector may reach. Loopback, private, link-local and other internal ranges are
 * refused unless the operator allows private networks; cloud metadata addresses are refused unless explicitly
 * allowed on their own. The check runs on every resolved address at connect time (see `guardedLookup`), so a name
 * that resolves to an internal address is refused as well as an IP literal.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { ConnectorError } from '../connector-error.js';
import { connectorEnvironment } from '../environment.js';

export interface NetworkPolicy {
  allowPrivateNetworks: boolean;
  allowMetadata: boolean;
}

export const NETWORK_POLICY_CODE = 'network_policy';

/** The policy the operator configured (read from the environment now). */
export function currentNetworkPolicy(): NetworkPolicy {
  const { allowPrivateNetworks, allowMetadata } = connectorEnvironment();
  return { allowPrivateNetworks, allowMetadata };
}

const METADATA = ['169.254.169.254', '100.100.100.200', 'fd00:ec2::254'];

function rangeList(ranges: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6']>): BlockList {
  const list = new BlockList();
  for (const [net, prefix, type] of ranges) list.addSubnet(net, prefix, type);
  return list;
}

const RANGES: ReadonlyArray<{ kind: string; list: BlockList }> = [
  { kind: 'loopback', list: rangeList([['127.0.0.0', 8, 'ipv4'], ['::1', 128, 'ipv6']]) },
  { kind: 'link-local', list: rangeList([['169.254.0.0', 16, 'ipv4'], ['fe80::', 10, 'ipv6']]) },
  {
    kind: 'private',
    list: rangeList([
      ['10.0.0.0', 8, 'ipv4'], ['172.16.0.0', 12, 'ipv4'], ['192.168.0.0', 16, 'ipv4'],
      ['100.64.0.0', 10, 'ipv4'], ['fc00::', 7, 'ipv6'],
    ]),
  },
  {
    kind: 'reserved',
    list: rangeList([
      ['0.0.0.0', 8, 'ipv4'], ['192.0.0.0', 24, 'ipv4'], ['198.18.0.0', 15, 'ipv4'], ['224.0.0.0', 4, 'ipv4'],
      ['240.0.0.0', 4, 'ipv4'], ['::', 128, 'ipv6'], ['ff00::', 8, 'ipv6'],
    ]),
  },
];

/** An IPv4 address written as IPv6 (`::ffff:10.0.0.1`) is judged as the IPv4 address it is. */
function unmapped(address: string): string {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return match?.[1] ?? address;
}

/** Why `address` is refused under `policy`, or null when it may be reached. */
export function refusalReason(address: string, policy: NetworkPolicy): string | null {
  const ip = unmapped(address);
  const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (METADATA.includes(ip.toLowerCase())) {
    return policy.allowMetadata ? null : `${ip} is a cloud metadata address`;
  }
  if (policy.allowPrivateNetworks) return null;
  const hit = RANGES.find((range) => range.list.check(ip, type));
  return hit ? `${ip} is a ${hit.kind} address` : null;
}

export function policyError(host: string, reason: string): ConnectorError {
  return new ConnectorError(
    `refused by the network policy: ${host} -> ${reason} (the operator can allow it with CONNECTOR_ALLOW_PRIVATE_NETWORKS=true)`,
    'config_error',
    { code: NETWORK_POLICY_CODE },
  );
}

/** Throws the policy error for an IP literal that may not be reached (names are checked by `guardedLookup`). */
export function assertLiteralAllowed(host: string, policy: NetworkPolicy): void {
  const ip = host.replace(/^\[|\]$/g, '');
  if (isIP(ip) === 0) return;
  const reason = refusalReason(ip, policy);
  if (reason) throw policyError(host, reason);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for node:net/http that refuses the connection when any resolved address is refused by `policy`. */
export function guardedLookup(policy: NetworkPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      for (const { address } of addresses) {
        const reason = refusalReason(address, policy);
        if (reason) return callback(policyError(hostname, reason), []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
