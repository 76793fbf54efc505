import { describe, expect, it } from '@jest/globals';
import { webhookAddressRefusal } from './address-policy.js';

const refused = async (addresses: string[], allowPrivate: boolean): Promise<string[]> => {
  const out: string[] = [];
  for (const a of addresses) if ((await webhookAddressRefusal(a, 443, allowPrivate)) !== null) out.push(a);
  return out;
};

describe('webhookAddressRefusal', () => {
  it('refuses internal addresses in every written form, as the connectors do', async () => {
    const internal = [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.0.1',
      '192.168.0.1',
      '100.64.0.1',
      '0.0.0.0',
      '::',
      '::1',
      'fc00::1',
      'fe80::1',
      'fec0::1',
      '::ffff:10.0.0.1',
      '::ffff:127.0.0.1',
      '64:ff9b::a00:1',
      '2002:a00:1::',
      '::ffff:0:a00:1',
      '::a00:1',
      '198.18.0.1',
      '224.0.0.1',
      '240.0.0.1',
      'not-an-ip',
      // An IPv4 address written as IPv6 is refused whatever it carries: receivers are named in their own form.
      '::ffff:8.8.8.8',
    ];
    expect(await refused(internal, false)).toEqual(internal);
  });

  it('refuses cloud metadata addresses in every form even when private networks are allowed', async () => {
    const metadata = [
      '169.254.169.254',
      '192.0.0.192',
      'fd00:ec2::254',
      '64:ff9b::a9fe:a9fe',
      '2002:a9fe:a9fe::',
      '::ffff:169.254.169.254',
    ];
    expect(await refused(metadata, true)).toEqual(metadata);
  });

  it("refuses the platform's own Redis whatever the settings", async () => {
    const saved = process.env['REDIS_URL'];
    process.env['REDIS_URL'] = 'redis://127.0.0.1:6390';
    try {
      expect(await webhookAddressRefusal('127.0.0.1', 6390, true)).toMatch(/platform's own Redis/);
      expect(await webhookAddressRefusal('127.0.0.1', 6391, true)).toBeNull();
    } finally {
      if (saved === undefined) delete process.env['REDIS_URL'];
      else process.env['REDIS_URL'] = saved;
    }
  });

  it('allows public addresses', async () => {
    expect(await refused(['93.184.215.14', '8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700::1111'], false)).toEqual(
      [],
    );
  });
});
