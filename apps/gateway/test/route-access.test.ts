// Fastify's router decodes the path (`/%762/projects`) and takes an absolute-form target (`http://host/v2/projects`):
// every spelling of a /v2 route needs a credential, and with one it is answered as the plain path is. And a body the
// database could not store (a lone surrogate) is refused before any service sees it.
import { newId } from '@conduit/service-kit';
import { type GatewayApp, type RawAnswer, bodyOf, rawExchange, startGatewayApp } from './gateway-app.js';

let gateway: GatewayApp;

beforeAll(async () => {
  gateway = await startGatewayApp({
    services: { 'catalog.projects.list': () => ({ ok: true, data: { data: [], next_cursor: null } }) },
  });
});

afterAll(async () => {
  await gateway?.stop();
});

function get(target: string, key?: string): Promise<RawAnswer> {
  const credential = key === undefined ? '' : `X-API-Key: ${key}\r\n`;
  return rawExchange(
    gateway.port,
    `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${credential}Connection: close\r\n\r\n`,
  );
}

/** What an answer says, without what differs on every request. */
function comparable(answer: RawAnswer): unknown {
  const { request_id: _id, instance: _instance, ...rest } = bodyOf(answer) as Record<string, unknown>;
  return { status: answer.status, body: rest };
}

describe('a /v2 route however its path is spelt', () => {
  const project = newId('project');
  const spellings = () => [
    ['/%762/projects', '/v2/projects'],
    [`http://127.0.0.1:${gateway.port}/v2/projects`, '/v2/projects'],
    [`/%76%32/projects/${project}`, `/v2/projects/${project}`],
    [`http://127.0.0.1:${gateway.port}/%76%32/projects/${project}`, `/v2/projects/${project}`],
  ];

  it('without a credential: 401 unauthenticated, and no service is asked', async () => {
    const before = gateway.calls.length;
    for (const [target] of spellings()) {
      const answer = await get(target!);
      expect({ target, status: answer.status }).toEqual({ target, status: 401 });
      expect(answer.text).toMatch(/\r\ncontent-type: application\/problem\+json/i);
      expect(bodyOf(answer)).toMatchObject({ code: 'unauthenticated' });
    }
    expect(gateway.calls.slice(before)).toEqual([]);
  });

  it('with a credential: the same answer as the plain path (a page; a 404 for a project that is not there)', async () => {
    for (const [target, plain] of spellings()) {
      const [spelt, expected] = [await get(target!, gateway.key), await get(plain!, gateway.key)];
      expect({ target, answer: comparable(spelt) }).toEqual({ target, answer: comparable(expected) });
      expect(spelt.status).toBe(target!.endsWith('/projects') ? 200 : 404);
    }
  });

  it('/healthz stays open, spelt either way', async () => {
    for (const target of ['/healthz', '/%68ealthz']) expect((await get(target)).status).toBe(200);
  });
});

describe('lone UTF-16 surrogates in a body', () => {
  function post(path: string, json: string): Promise<Response> {
    return fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': gateway.key, 'content-type': 'application/json' },
      body: json,
    });
  }

  it('in a pipeline node id and a job parameter key: 422 validation_failed naming each, before any service', async () => {
    const before = gateway.calls.length;
    const pipeline = await post(
      '/v2/pipelines',
      '{"name":"s","dag":{"nodes":[{"id":"a\\ud800","type":"transform","config":{"sql":"select 1"}}],"edges":[]}}',
    );
    expect(pipeline.status).toBe(422);
    expect(await pipeline.json()).toMatchObject({
      code: 'validation_failed',
      errors: [
        {
          path: 'dag.nodes[0].id',
          code: 'invalid_characters',
          message: 'contains an unpaired UTF-16 surrogate (\\ud800): not valid Unicode text',
        },
      ],
    });
    const job = await post('/v2/jobs', '{"name":"j","parameters":{"k\\udc00":"v"}}');
    expect(job.status).toBe(422);
    expect(await job.json()).toMatchObject({ errors: [{ path: 'parameters', code: 'invalid_characters' }] });
    expect(gateway.calls.slice(before)).toEqual([]);
  });

  it('a surrogate pair (an emoji) passes, intact, to the service', async () => {
    const before = gateway.calls.length;
    await post('/v2/projects', '{"name":"\\ud83d\\ude80 launch"}');
    expect(gateway.calls.slice(before)).toContainEqual({
      pattern: 'catalog.projects.create',
      data: { body: expect.objectContaining({ name: '🚀 launch' }) },
    });
  });
});
