import { currentNetworkPolicy, policyError, refusalReason, type NetworkPolicy } from './network-policy.js';
import { embeddedIpv4, parseIp, parsePrefix } from './ip-address.js';

const closed: NetworkPolicy = { allowPrivateNetworks: false, allowedNetworks: [] };
const open: NetworkPolicy = { allowPrivateNetworks: true, allowedNetworks: [] };
const listed = (...cidrs: string[]): NetworkPolicy =>
  currentNetworkPolicy({ CONNECTOR_ALLOWED_NETWORKS: cidrs.join(',') });

describe('network policy: refused by default', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12::1', 'unique local'],
    ['fec0::1', 'site-local'],
    ['169.254.10.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.254', 'CGNAT'],
    ['64:ff9b::7f00:1', 'NAT64'],
    ['64:ff9b::8.8.8.8', 'NAT64'],
    ['64:ff9b:1::1', 'NAT64'],
    ['2002:7f00:1::1', '6to4'],
    ['2001:0:4136:e378::1', 'Teredo'],
    ['192.0.2.1', 'TEST-NET'],
    ['198.51.100.7', 'TEST-NET'],
    ['203.0.113.9', 'TEST-NET'],
    ['2001:db8::1', 'TEST-NET'],
    ['3fff::1', 'TEST-NET'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.1', 'benchmarking'],
    ['2001:2::1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.1.1.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.0.8', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['100::1', 'discard'],
    ['2001:10::1', 'reserved'],
    ['4000::1', 'outside global unicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped'],
    ['::ffff:7f00:1', 'IPv4-mapped'],
    ['0:0:0:0:0:ffff:7f00:0001', 'IPv4-mapped'],
    ['::ffff:8.8.8.8', 'IPv4-mapped'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['::7f00:1', 'IPv4-compatible'],
    ['::ffff:0:7f00:1', 'IPv4-translated'],
  ])('refuses %s (%s)', (address, kind) => {
    const reason = refusalReason(address, closed);
    expect(reason).toContain(kind);
    expect(reason).toContain(address);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '2606:4700::1111',
    '2a00:1450:4001::1',
    '100.63.255.255',
    '100.128.0.1',
    '172.32.0.1',
    '198.20.0.1',
  ])('lets the public address %s through', (address) => {
    expect(refusalReason(address, closed)).toBeNull();
  });

  it('refuses what is not an IP address', () => {
    expect(refusalReason('localhost', closed)).toMatch(/not an IP address/);
  });
});

describe('network policy: metadata addresses are never reachable', () => {
  it.each([
    '169.254.169.254',
    '169.254.170.2',
    '169.254.169.253',
    '100.100.100.200',
    '192.0.0.192',
    'fd00:ec2::254',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '2002:a9fe:a9fe::1',
    '::169.254.169.254',
    '169.254.170.23',
    'fd00:ec2::23',
    'fd20:ce::254',
    '169.254.0.23',
    '168.63.129.16',
    '64:ff9b:1::a9fe:a9fe',
    '64:ff9b:1:a9fe:a9:fe00::',
    '64:ff9b:1:a9:fe:a9fe:808:808',
    '64:ff9b:1:0:a9:fea9:fe00:0',
    '2001:0:4136:e378:8000:63bf:5601:5601',
  ])('%s is refused even with private networks and every range allowed', (address) => {
    expect(refusalReason(address, closed)).toMatch(/cloud metadata/);
    expect(refusalReason(address, open)).toMatch(/cloud metadata/);
    expect(refusalReason(address, listed('0.0.0.0/0', '::/0'))).toMatch(/cloud metadata/);
  });

  it('says there is no setting for it', () => {
    const message = policyError('meta.internal', refusalReason('169.254.169.254', open) ?? '').message;
    expect(message).toContain('may never reach');
    expect(message).not.toContain('CONNECTOR_ALLOW_PRIVATE_NETWORKS');
  });
});

describe('network policy: the operator allows private networks', () => {
  it('CONNECTOR_ALLOW_PRIVATE_NETWORKS=true lets every internal range through', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '::1',
      '::ffff:127.0.0.1',
      '64:ff9b::7f00:1',
      'fd00::1',
      '169.254.1.1',
    ]) {
      expect(refusalReason(address, open)).toBeNull();
    }
    expect(currentNetworkPolicy({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' }).allowPrivateNetworks).toBe(true);
    expect(currentNetworkPolicy({}).allowPrivateNetworks).toBe(false);
  });

  it('CONNECTOR_ALLOWED_NETWORKS lets only the listed ranges through', () => {
    const policy = listed('10.1.0.0/16', 'fd00:1::/64', '192.168.7.7');
    expect(refusalReason('10.1.200.3', policy)).toBeNull();
    expect(refusalReason('::ffff:10.1.200.3', policy)).toBeNull();
    expect(refusalReason('10.2.0.1', policy)).toContain('private');
    expect(refusalReason('fd00:1::abcd', policy)).toBeNull();
    expect(refusalReason('fd00:2::1', policy)).toContain('unique local');
    expect(refusalReason('192.168.7.7', policy)).toBeNull();
    expect(refusalReason('192.168.7.8', policy)).toContain('private');
    expect(refusalReason('127.0.0.1', policy)).toContain('loopback');
  });

  it('a malformed CONNECTOR_ALLOWED_NETWORKS entry is an error that names it', () => {
    expect(() => listed('10.1.0.0/33')).toThrow(/"10\.1\.0\.0\/33" is not a CIDR/);
    expect(() => listed('intranet')).toThrow(/"intranet"/);
  });
});

describe('ip addresses', () => {
  it('reads every IPv6 spelling of one address to the same bytes', () => {
    const forms = ['::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1', '[::ffff:7f00:1]'];
    const bytes = forms.map((f) => Array.from(parseIp(f)?.bytes ?? []).join('.'));
    expect(new Set(bytes).size).toBe(1);
    expect(
      Array.from(embeddedIpv4(parseIp('64:ff9b::7f00:1') ?? { family: 4, bytes: new Uint8Array() })?.bytes ?? []),
    ).toEqual([127, 0, 0, 1]);
  });

  it('parses prefixes and refuses bad ones', () => {
    expect(parsePrefix('10.0.0.0/8')?.length).toBe(8);
    expect(parsePrefix('fd00::/7')?.length).toBe(7);
    expect(parsePrefix('1.2.3.4')?.length).toBe(32);
    expect(parsePrefix('1.2.3.4/x')).toBeNull();
    expect(parsePrefix('::/129')).toBeNull();
  });
});
