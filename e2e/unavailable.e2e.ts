import { startStack, stopProcess, type Stack } from '@conduit/testing';
import { call, expectProblem } from './support/client.js';
import type { Page, Project } from '@conduit/contracts';

// 503 service_unavailable (api.md, Errors and Limits): a backend that does not answer the gateway in time.
// This stack's catalog is stopped, so the file has a stack of its own.
let stack: Stack;

beforeAll(async () => {
  // A shorter RPC timeout than the default 5 s keeps the file fast; the behaviour is the same.
  stack = await startStack({ RPC_TIMEOUT_MS: '1500' });
});

afterAll(async () => {
  await stack?.stop();
});

it('answers 503 with Retry-After when the catalog is gone, and the gateway itself stays up', async () => {
  expect((await call<Page<Project>>(stack, 'GET', '/v2/projects')).status).toBe(200);
  const catalog = stack.processes.find((p) => p.name === 'catalog');
  expect(catalog).toBeDefined();
  await stopProcess(catalog!.child);

  for (const [method, path, body] of [
    ['GET', '/v2/projects', undefined],
    ['POST', '/v2/projects', { name: 'nobody-answers' }],
    ['GET', '/v2/templates', undefined],
  ] as const) {
    const started = Date.now();
    const res = await call(stack, method, path, body ? { body } : {});
    expectProblem(res, 503, 'service_unavailable');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(5_000);
  }
  const health = await fetch(`${stack.baseUrl}/healthz`);
  expect(health.status).toBe(200);
});
