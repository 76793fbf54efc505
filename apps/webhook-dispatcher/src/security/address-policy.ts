import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may not reach unless the operator allows private networks: loopback, private, link-local,
 * cloud metadata and unspecified ones (IPv4-mapped IPv6 addresses are checked as the IPv4 they carry).
 */
const FORBIDDEN = new BlockList();
FORBIDDEN.addSubnet('0.0.0.0', 8, 'ipv4'); // unspecified / "this network"
FORBIDDEN.addSubnet('10.0.0.0', 8, 'ipv4');
FORBIDDEN.addSubnet('100.64.0.0', 10, 'ipv4'); // carrier-grade NAT, private in practice
FORBIDDEN.addSubnet('127.0.0.0', 8, 'ipv4');
FORBIDDEN.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, holds 169.254.169.254 (metadata)
FORBIDDEN.addSubnet('172.16.0.0', 12, 'ipv4');
FORBIDDEN.addSubnet('192.168.0.0', 16, 'ipv4');
FORBIDDEN.addAddress('255.255.255.255', 'ipv4');
FORBIDDEN.addAddress('::', 'ipv6');
FORBIDDEN.addAddress('::1', 'ipv6');
FORBIDDEN.addSubnet('fc00::', 7, 'ipv6'); // unique local, holds fd00:ec2::254 (metadata)
FORBIDDEN.addSubnet('fe80::', 10, 'ipv6');

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** True when the address is one a webhook must not reach by default. Something that is no IP address is forbidden too. */
export function isForbiddenAddress(address: string): boolean {
  const mapped = MAPPED_V4.exec(address);
  if (mapped?.[1]) return isForbiddenAddress(mapped[1]);
  const family = isIP(address);
  if (family === 0) return true;
  return FORBIDDEN.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
