/**
 * IP addresses as bytes, so that every written form of one address (`::ffff:127.0.0.1`, `::ffff:7f00:1`,
 * `0:0:0:0:0:ffff:7f00:1`) is judged the same, and CIDR prefixes can be matched without string tricks.
 */
import { isIP } from 'node:net';

export interface IpAddress {
  family: 4 | 6;
  /** 4 or 16 bytes, network order. */
  bytes: Uint8Array;
}

export interface IpPrefix extends IpAddress {
  length: number;
}

/** The address in `text` (an IPv6 zone id is ignored), or null when it is not an IP address. */
export function parseIp(text: string): IpAddress | null {
  const ip = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 4) return { family: 4, bytes: Uint8Array.from(ip.split('.').map(Number)) };
  if (family !== 6) return null;
  // A trailing dotted quad stands for the last two groups.
  const hex = ip.replace(
    /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
    (_m, a: string, b: string, c: string, d: string) =>
      `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
  );
  const [head = '', tail] = hex.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined ? left : [...left, ...new Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return { family: 6, bytes };
}

/** `10.0.0.0/8`, `fd00:1::/64`, or a single address (a full-length prefix); null when malformed. */
export function parsePrefix(text: string): IpPrefix | null {
  const [ip = '', length, ...extra] = text.trim().split('/');
  const address = parseIp(ip);
  if (!address || extra.length > 0) return null;
  const max = address.family === 4 ? 32 : 128;
  if (length === undefined) return { ...address, length: max };
  if (!/^\d{1,3}$/.test(length) || Number(length) > max) return null;
  return { ...address, length: Number(length) };
}

export function inPrefix(address: IpAddress, prefix: IpPrefix): boolean {
  if (address.family !== prefix.family) return false;
  const whole = Math.floor(prefix.length / 8);
  for (let i = 0; i < whole; i++) if (address.bytes[i] !== prefix.bytes[i]) return false;
  const rest = prefix.length % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((address.bytes[whole] ?? 0) & mask) === ((prefix.bytes[whole] ?? 0) & mask);
}

export function formatIp(address: IpAddress): string {
  if (address.family === 4) return address.bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2)
    groups.push((((address.bytes[i] ?? 0) << 8) | (address.bytes[i + 1] ?? 0)).toString(16));
  return groups.join(':');
}

const ipv4 = (bytes: Uint8Array, from: number): IpAddress => ({ family: 4, bytes: bytes.slice(from, from + 4) });
const zeros = (bytes: Uint8Array, from: number, to: number): boolean => bytes.subarray(from, to).every((b) => b === 0);

/**
 * The IPv4 address an IPv6 form carries and reaches: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`),
 * SIIT-translated (`::ffff:0:a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`, and `64:ff9b:1::/48` for local use), 6to4
 * (`2002:AABB:CCDD::`) and Teredo's client (`2001:0:...`, inverted). Null otherwise.
 */
const isNat64 = (b: Uint8Array): boolean => b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b;
const isLocalNat64 = (b: Uint8Array): boolean => isNat64(b) && b[4] === 0 && b[5] === 1;

/**
 * Every IPv4 address an address of the local-use NAT64 prefix (64:ff9b:1::/48) may carry: a translator there may use
 * any of RFC 6052's layouts for a /48, /56, /64 or /96 prefix (bits 64-71 are never the address's). Empty otherwise.
 */
export function localNat64Ipv4s(address: IpAddress): IpAddress[] {
  const b = address.bytes;
  if (address.family !== 6 || !isLocalNat64(b)) return [];
  const of = (...at: number[]): IpAddress => ({ family: 4, bytes: Uint8Array.from(at.map((i) => b[i]!)) });
  return [of(6, 7, 9, 10), of(7, 9, 10, 11), of(9, 10, 11, 12), of(12, 13, 14, 15)];
}

export function embeddedIpv4(address: IpAddress): IpAddress | null {
  if (address.family !== 6) return null;
  const b = address.bytes;
  if (zeros(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return ipv4(b, 12);
  if (zeros(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(b, 10, 12)) return ipv4(b, 12);
  if (zeros(b, 0, 12) && !zeros(b, 12, 15)) return ipv4(b, 12);
  // NAT64: the well-known prefix, and local use (64:ff9b:1::/48) as the /96 translators use it (localNat64Ipv4s).
  if (isNat64(b) && (zeros(b, 4, 12) || isLocalNat64(b))) return ipv4(b, 12);
  if (b[0] === 0x20 && b[1] === 0x02) return ipv4(b, 2);
  // Teredo (2001:0::/32): the client's address, stored inverted in the last four bytes.
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0)
    return { family: 4, bytes: b.slice(12, 16).map((byte) => byte ^ 0xff) };
  return null;
}
