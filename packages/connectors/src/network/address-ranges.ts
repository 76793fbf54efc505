/**
 * The address ranges a connector may not reach by default, each with the name a user reads in the refusal, and the
 * cloud metadata addresses it may never reach. First match wins, so narrower ranges come before the wider ones.
 */
import { embeddedIpv4, inPrefix, localNat64Ipv4s, parsePrefix, type IpAddress, type IpPrefix } from './ip-address.js';

interface Range {
  prefix: IpPrefix;
  kind: string;
}

function ranges(list: ReadonlyArray<readonly [string, string]>): Range[] {
  return list.map(([cidr, kind]) => {
    const prefix = parsePrefix(cidr);
    if (!prefix) throw new Error(`bad built-in range ${cidr}`);
    return { prefix, kind };
  });
}

/**
 * Instance metadata and credential services: AWS, GCP, Azure, OpenStack, DigitalOcean (169.254.169.254), AWS ECS task
 * credentials (169.254.170.2), AWS DNS (169.254.169.253), EKS Pod Identity (169.254.170.23, fd00:ec2::23), AWS IPv6
 * (fd00:ec2::254), GCP IPv6 (fd20:ce::254), Azure WireServer (168.63.129.16), Alibaba (100.100.100.200), Oracle
 * (192.0.0.192), Tencent (169.254.0.23).
 */
const METADATA = ranges([
  ['169.254.169.254/32', 'cloud metadata'],
  ['169.254.170.2/32', 'cloud metadata'],
  ['169.254.170.23/32', 'cloud metadata'],
  ['169.254.169.253/32', 'cloud metadata'],
  ['169.254.0.23/32', 'cloud metadata'],
  ['168.63.129.16/32', 'cloud metadata'],
  ['100.100.100.200/32', 'cloud metadata'],
  ['192.0.0.192/32', 'cloud metadata'],
  ['fd00:ec2::254/128', 'cloud metadata'],
  ['fd00:ec2::23/128', 'cloud metadata'],
  ['fd20:ce::254/128', 'cloud metadata'],
]);

const REFUSED = ranges([
  ['0.0.0.0/32', 'unspecified'],
  ['0.0.0.0/8', 'reserved ("this network")'],
  ['10.0.0.0/8', 'private'],
  ['172.16.0.0/12', 'private'],
  ['192.168.0.0/16', 'private'],
  ['100.64.0.0/10', 'CGNAT (shared address space)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['192.0.0.0/24', 'reserved (IETF protocol assignments)'],
  ['192.0.2.0/24', 'TEST-NET (documentation)'],
  ['198.51.100.0/24', 'TEST-NET (documentation)'],
  ['203.0.113.0/24', 'TEST-NET (documentation)'],
  ['192.88.99.0/24', 'reserved (6to4 relay anycast)'],
  ['198.18.0.0/15', 'benchmarking'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::ffff:0:0/96', 'IPv4-mapped IPv6'],
  ['::ffff:0:0:0/96', 'IPv4-translated IPv6'],
  ['::/96', 'IPv4-compatible IPv6'],
  ['64:ff9b::/96', 'NAT64'],
  ['64:ff9b:1::/48', 'NAT64 (local use)'],
  ['100::/64', 'reserved (discard only)'],
  ['2001::/32', 'Teredo'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:db8::/32', 'TEST-NET (documentation)'],
  ['2001::/23', 'reserved (IETF protocol assignments)'],
  ['2002::/16', '6to4'],
  ['3fff::/20', 'TEST-NET (documentation)'],
  ['fc00::/7', 'private (unique local)'],
  ['fec0::/10', 'private (site-local)'],
  ['fe80::/10', 'link-local'],
  ['ff00::/8', 'multicast'],
]);

const GLOBAL_UNICAST_V6 = parsePrefix('2000::/3') as IpPrefix;

const match = (list: readonly Range[], address: IpAddress): string | null =>
  list.find((r) => inPrefix(address, r.prefix))?.kind ?? null;

/** True for a metadata address, also written as an IPv6 form that reaches it (mapped, NAT64, 6to4...). */
export function isMetadataAddress(address: IpAddress): boolean {
  const inner = embeddedIpv4(address);
  const carried = inner === null ? localNat64Ipv4s(address) : [inner, ...localNat64Ipv4s(address)];
  return match(METADATA, address) !== null || carried.some((ip) => match(METADATA, ip) !== null);
}

/** The kind of internal range `address` is in (e.g. `loopback`), or null for a public unicast address. */
export function internalRangeKind(address: IpAddress): string | null {
  const kind = match(REFUSED, address);
  if (kind) return kind;
  if (address.family === 6 && !inPrefix(address, GLOBAL_UNICAST_V6))
    return 'reserved (outside global unicast 2000::/3)';
  return null;
}
