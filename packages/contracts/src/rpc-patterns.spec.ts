import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { RPC, rpcPatterns, serviceOf } from './index.js';

const APPS = fileURLToPath(new URL('../../../apps', import.meta.url));

/** Every `@RpcRoute('<pattern>')` in the apps' sources, with the file it sits in. */
function handlersInApps(): { pattern: string; file: string }[] {
  const found: { pattern: string; file: string }[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) {
        for (const m of readFileSync(path, 'utf8').matchAll(/@RpcRoute\(\s*'([^']+)'\s*\)/g))
          found.push({ pattern: m[1] as string, file: path });
      }
    }
  };
  for (const app of readdirSync(APPS)) walk(join(APPS, app, 'src'));
  return found;
}

describe('the RPC table', () => {
  it('gives every pattern a request and a response schema', () => {
    expect(rpcPatterns.length).toBeGreaterThan(40);
    for (const pattern of rpcPatterns) {
      expect(pattern).toMatch(/^[a-z]+\.[a-z-]+\.[a-z]+$/);
      const entry = RPC[pattern] as { request?: unknown; response?: unknown };
      expect(Object.keys(entry).sort()).toEqual(['request', 'response']);
      expect(entry.request).toBeInstanceOf(z.ZodType);
      expect(entry.response).toBeInstanceOf(z.ZodType);
    }
  });

  it('has a pattern for every handler in the apps, and one handler for every pattern', () => {
    const handlers = handlersInApps();
    expect(handlers.length).toBeGreaterThan(40);
    const unknown = handlers.filter((h) => !Object.hasOwn(RPC, h.pattern));
    expect(unknown).toEqual([]);
    const handled = handlers.map((h) => h.pattern).sort();
    expect(handled).toEqual([...rpcPatterns].sort());
    for (const h of handlers)
      expect(h.file).toContain(
        `/apps/${serviceOf(h.pattern) === 'webhooks' ? 'webhook-dispatcher' : serviceOf(h.pattern)}/`,
      );
  });
});

describe('response schemas', () => {
  const at = '2026-11-25T10:00:00.000Z';
  const validation = {
    valid: false,
    errors: [{ code: 'cycle', message: 'a cycle' }],
    warnings: [],
    execution_order: [],
    validated_at: at,
  };
  const pipeline = {
    id: 'pln_1',
    project_id: null,
    name: 'draft',
    description: null,
    // A draft that breaks the documented DAG rules is still answered as saved.
    dag: { nodes: [{ id: 'a', type: 'nonsense', config: {} }], edges: [{ from: 'a', to: 'a' }] },
    version: 1,
    status: 'invalid',
    validation,
    created_at: at,
    updated_at: at,
  };

  it('answer a stored pipeline with its draft DAG, alone and in a page', () => {
    expect(RPC['catalog.pipelines.get'].response.parse(pipeline)).toEqual(pipeline);
    expect(RPC['catalog.pipelines.list'].response.parse({ data: [pipeline], next_cursor: null }).data).toHaveLength(1);
  });

  it('refuse an answer with a field the contract does not name, or without one it does', () => {
    const project = { id: 'prj_1', name: 'p', description: null, template: null, created_at: at, updated_at: at };
    expect(RPC['catalog.projects.get'].response.safeParse(project).success).toBe(true);
    expect(RPC['catalog.projects.get'].response.safeParse({ ...project, tenant_id: 'tnt_1' }).success).toBe(false);
    const { name: _name, ...nameless } = project;
    expect(RPC['catalog.projects.get'].response.safeParse(nameless).success).toBe(false);
  });

  it('answer a delete with null and the internal patterns with their own shapes', () => {
    expect(RPC['catalog.projects.delete'].response.parse(null)).toBeNull();
    expect(RPC['catalog.projects.delete'].response.safeParse({}).success).toBe(false);
    expect(RPC['scheduler.jobs.usage'].response.parse({ jobs: 2 })).toEqual({ jobs: 2 });
    expect(
      RPC['scheduler.runs.claim'].response.parse({
        granted: false,
        reason: 'held',
        status: 'running',
        retry_in_ms: 10,
      }),
    ).toMatchObject({
      granted: false,
    });
    expect(
      RPC['catalog.connectors.resolve'].response.parse([
        { id: 'con_1', type: 'postgres', config: { password: 'enc:v1:x' } },
      ]),
    ).toHaveLength(1);
    expect(RPC['catalog.pipelines.snapshot'].response.safeParse({ ...pipeline }).success).toBe(false);
  });
});
