import type { DestinationStream } from 'pino';
import { createLogger } from './logger.js';

function capture(): { stream: DestinationStream; lines: () => Array<Record<string, unknown>>; raw: () => string } {
  const chunks: string[] = [];
  return {
    stream: { write: (chunk: string) => void chunks.push(chunk) },
    raw: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('createLogger', () => {
  it('writes JSON lines with the service, a label level and an RFC 3339 UTC timestamp', () => {
    const out = capture();
    createLogger({ service: 'catalog', destination: out.stream }).info({ run_id: 'r1' }, 'hello');
    const [line] = out.lines();
    expect(line).toMatchObject({ service: 'catalog', level: 'info', msg: 'hello', run_id: 'r1' });
    expect(line?.['time']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('stamps each line with the time it was written, not a stale one', async () => {
    const out = capture();
    const logger = createLogger({ service: 's', destination: out.stream });
    const before = Date.now();
    logger.info('first');
    await new Promise((resolve) => setTimeout(resolve, 5));
    logger.info('second');
    const after = Date.now();
    const times = out.lines().map((line) => Date.parse(line['time'] as string));
    expect(times[0]).toBeGreaterThanOrEqual(before);
    expect(times[1]).toBeGreaterThan(times[0] as number);
    expect(times[1]).toBeLessThanOrEqual(after);
  });

  it('honours the level', () => {
    const out = capture();
    const logger = createLogger({ service: 's', level: 'warn', destination: out.stream });
    logger.info('dropped');
    logger.warn('kept');
    expect(out.lines().map((line) => line['msg'])).toEqual(['kept']);
  });

  it('redacts secrets at every depth commonly logged', () => {
    const out = capture();
    const logger = createLogger({ service: 's', destination: out.stream });
    logger.info(
      {
        password: 'S1-top-password',
        token: 'S2-top-token',
        user: { name: 'ada', password: 'S3-user-password', apiKey: 'S4-user-apikey' },
        req: {
          method: 'GET',
          headers: { authorization: 'Bearer S5-bearer', 'x-api-key': 'S6-api-key', cookie: 'sid=S7-cookie', host: 'h' },
        },
        res: { headers: { 'set-cookie': 'sid=S8-set-cookie' } },
        connector: { config: { host: 'db', password: 'S9-config-password', api_key: 'S10-config-key' } },
        body: { connector: { config: { password: 'S11-deep-password', secret: 'S12-deep-secret' } } },
        webhooks: [{ url: 'https://x', secret: 'S13-array-secret' }],
      },
      'request',
    );
    logger.child({ secret: 'S14-child-secret' }).info({ refresh_token: 'S15-refresh' }, 'child');

    const raw = out.raw();
    for (let i = 1; i <= 15; i++) expect(raw).not.toMatch(new RegExp(`S${i}-`));
    const [request, child] = out.lines();
    expect(request).toMatchObject({
      password: '[redacted]',
      user: { name: 'ada', password: '[redacted]', apiKey: '[redacted]' },
      req: { method: 'GET', headers: { authorization: '[redacted]', 'x-api-key': '[redacted]', host: 'h' } },
      connector: { config: { host: 'db', password: '[redacted]' } },
      body: { connector: { config: { password: '[redacted]' } } },
      webhooks: [{ url: 'https://x', secret: '[redacted]' }],
    });
    expect(child).toMatchObject({ secret: '[redacted]', refresh_token: '[redacted]', msg: 'child' });
  });
});
