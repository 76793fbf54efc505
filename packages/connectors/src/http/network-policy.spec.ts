import { refusalReason } from './network-policy.js';

const closed = { allowPrivateNetworks: false, allowMetadata: false };
const open = { allowPrivateNetworks: true, allowMetadata: false };

describe('network policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'], ['::1', 'loopback'], ['::ffff:127.0.0.1', 'loopback'], ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'], ['192.168.1.1', 'private'], ['fd12::1', 'private'], ['169.254.10.1', 'link-local'],
    ['fe80::1', 'link-local'], ['0.0.0.0', 'reserved'], ['169.254.169.254', 'metadata'],
  ])('refuses %s (%s) by default', (address, kind) => {
    expect(refusalReason(address, closed)).toContain(kind);
  });

  it('lets public addresses through', () => {
    expect(refusalReason('93.184.216.34', closed)).toBeNull();
    expect(refusalReason('2606:4700::1111', closed)).toBeNull();
  });

  it('allows private networks when the operator says so, but still not the metadata address', () => {
    expect(refusalReason('127.0.0.1', open)).toBeNull();
    expect(refusalReason('10.0.0.1', open)).toBeNull();
    expect(refusalReason('169.254.169.254', open)).toMatch(/metadata/);
    expect(refusalReason('169.254.169.254', { ...open, allowMetadata: true })).toBeNull();
  });
});
