import { gatewayEnvSchema } from './config.js';

const BASE = { SECRETS_KEY: '0a'.repeat(32) };

describe('gateway config', () => {
  it('serves /metrics on 3100 and re-checks a live stream’s credential every 5 s by default', () => {
    expect(gatewayEnvSchema.parse(BASE)).toMatchObject({
      GATEWAY_PORT: 3000,
      GATEWAY_METRICS_PORT: 3100,
      STREAM_AUTH_RECHECK_MS: 5000,
    });
  });

  it('refuses the API port as the metrics port, which would make /metrics public', () => {
    const result = gatewayEnvSchema.safeParse({ ...BASE, GATEWAY_PORT: '8080', GATEWAY_METRICS_PORT: '8080' });
    expect(result.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['GATEWAY_METRICS_PORT', 'must differ from GATEWAY_PORT'],
    ]);
    // Two ephemeral ports (tests) are two different ports.
    expect(gatewayEnvSchema.safeParse({ ...BASE, GATEWAY_PORT: '0', GATEWAY_METRICS_PORT: '0' }).success).toBe(true);
  });

  it('gives a client 30 s to send a whole request by default, and between 1 s and 10 min when set', () => {
    expect(gatewayEnvSchema.parse(BASE).REQUEST_RECEIVE_TIMEOUT_MS).toBe(30_000);
    expect(gatewayEnvSchema.parse({ ...BASE, REQUEST_RECEIVE_TIMEOUT_MS: '5000' }).REQUEST_RECEIVE_TIMEOUT_MS).toBe(
      5000,
    );
    // 0 would be Node's "no limit": the slowloris the setting exists against.
    for (const value of ['0', '999', '600001', 'soon']) {
      expect(gatewayEnvSchema.safeParse({ ...BASE, REQUEST_RECEIVE_TIMEOUT_MS: value }).success).toBe(false);
    }
  });

  it('refuses a re-check interval under 100 ms', () => {
    expect(gatewayEnvSchema.safeParse({ ...BASE, STREAM_AUTH_RECHECK_MS: '10' }).success).toBe(false);
  });
});
