import { UrlRefusedError, parseWebhookUrl } from './url-policy.js';

const policy = { allowHttp: false, allowPrivateNetworks: false };

describe('parseWebhookUrl', () => {
  // The API's schema refuses these before the dispatcher sees them; this check stays for URLs that reach it otherwise.
  it.each(['https://me:pw@hooks.example.com/in', 'https://hooks.example.com/in?token=abc123'])(
    'refuses %s as carrying credentials, naming the part and not its value',
    (url) => {
      const refused = (() => {
        try {
          parseWebhookUrl(url, policy);
        } catch (err) {
          return err;
        }
        return undefined;
      })();
      expect(refused).toBeInstanceOf(UrlRefusedError);
      expect(refused).toMatchObject({ code: 'invalid_url' });
      expect((refused as Error).message).toMatch(/^must not carry credentials.*the secret signs deliveries/);
      expect((refused as Error).message).not.toMatch(/pw@|abc123/);
    },
  );

  it('takes an https URL without credentials, and plain http only where allowed', () => {
    expect(parseWebhookUrl('https://hooks.example.com/in?format=json', policy).host).toBe('hooks.example.com');
    expect(() => parseWebhookUrl('http://hooks.example.com/in', policy)).toThrow(UrlRefusedError);
    expect(parseWebhookUrl('http://hooks.example.com/in', { ...policy, allowHttp: true }).protocol).toBe('http:');
  });
});
