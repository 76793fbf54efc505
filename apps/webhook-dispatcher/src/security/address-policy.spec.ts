import { describe, expect, it } from '@jest/globals';
import { isForbiddenAddress } from './address-policy.js';

describe('isForbiddenAddress', () => {
  it('forbids loopback, private, link-local, metadata and unspecified addresses', () => {
    const forbidden = ['127.0.0.1', '127.9.9.9', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '::', '::1', 'fc00::1', 'fd00:ec2::254', 'fe80::1', '::ffff:10.0.0.1', '::ffff:127.0.0.1', 'not-an-ip'];
    expect(forbidden.filter((a) => !isForbiddenAddress(a))).toEqual([]);
  });

  it('allows public addresses', () => {
    const allowed = ['93.184.215.14', '8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700::1111', '::ffff:8.8.8.8'];
    expect(allowed.filter((a) => isForbiddenAddress(a))).toEqual([]);
  });
});
