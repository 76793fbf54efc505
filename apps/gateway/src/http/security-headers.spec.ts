import Fastify from 'fastify';
import { registerSecurityHeaders } from './security-headers.js';

describe('security headers', () => {
  const app = Fastify();
  registerSecurityHeaders(app);
  for (const path of ['/v2/projects', '/v2/openapi.json', '/docs', '/docs/swagger-ui-init.js', '/v2/logs'])
    app.get(path, (_request, reply) =>
      path === '/v2/logs' ? reply.header('cache-control', 'no-cache, no-transform').send('') : reply.send('ok'),
    );
  let base = '';
  beforeAll(async () => {
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());

  const headersOf = async (url: string) => {
    const res = await fetch(`${base}${url}`);
    await res.text();
    return Object.fromEntries(res.headers);
  };

  it("keeps the API's answers out of every cache, a route's own setting and the published document aside", async () => {
    expect((await headersOf('/v2/projects'))['cache-control']).toBe('no-store');
    expect((await headersOf('/v2/openapi.json'))['cache-control']).toBeUndefined();
    expect((await headersOf('/v2/logs'))['cache-control']).toBe('no-cache, no-transform');
  });

  it("never lets Swagger UI, on the console's origin, be framed", async () => {
    for (const url of ['/docs', '/docs/swagger-ui-init.js']) {
      const headers = await headersOf(url);
      expect(headers['x-frame-options']).toBe('DENY');
      expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(headers['x-content-type-options']).toBe('nosniff');
    }
  });
});
