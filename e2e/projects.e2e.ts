import { startStack, type Stack } from '@conduit/testing';
import { call, expectProblem, type ApiResponse } from './support/client.js';
import { RFC3339_MS, listAll, uniqueName } from './support/helpers.js';
import type {
  Connector,
  CreatedApiKey,
  Page,
  Pipeline,
  Project,
  Template,
  Tenant,
  ProblemDocument,
} from '@conduit/contracts';

// Projects and templates through the gateway, against api.md (Resources > Project).
let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.stop();
});

function expectProject(body: Project): void {
  expect(Object.keys(body).sort()).toEqual(['created_at', 'description', 'id', 'name', 'template', 'updated_at']);
  expect(body.id).toMatch(/^prj_/);
  expect(body.created_at).toMatch(RFC3339_MS);
  expect(body.updated_at).toMatch(RFC3339_MS);
}

describe('projects', () => {
  it('creates a project: 201, Location, ETag, X-Request-Id and the resource', async () => {
    const name = uniqueName('create');
    const res = await call<Project>(stack, 'POST', '/v2/projects', { body: { name, description: 'first project' } });
    expect(res.status).toBe(201);
    expectProject(res.body);
    expect(res.body).toMatchObject({ name, description: 'first project', template: null });
    expect(res.headers.get('location')).toBe(`/v2/projects/${res.body.id}`);
    expect(res.headers.get('etag')).toBeTruthy();
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('gets a project with its ETag; the Location of a create leads to it', async () => {
    const created = await call<Project>(stack, 'POST', '/v2/projects', { body: { name: uniqueName('get') } });
    const res = await call(stack, 'GET', created.headers.get('location')!);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
    expect(res.headers.get('etag')).toBe(created.headers.get('etag'));
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('echoes a sane X-Request-Id sent by the client', async () => {
    const res = await call<Page<Project>>(stack, 'GET', '/v2/projects?limit=1', {
      headers: { 'x-request-id': 'client-chosen-id-123' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('client-chosen-id-123');
  });

  it('updates with If-Match: a match is a 200 with a new ETag, a stale tag a 412 that changes nothing', async () => {
    const created = await call<Project>(stack, 'POST', '/v2/projects', {
      body: { name: uniqueName('upd'), description: 'before' },
    });
    const etag = created.headers.get('etag')!;
    const newName = uniqueName('upd-renamed');
    const updated = await call<Project>(stack, 'PUT', `/v2/projects/${created.body.id}`, {
      body: { name: newName, description: 'after' },
      headers: { 'if-match': etag },
    });
    expect(updated.status).toBe(200);
    expectProject(updated.body);
    expect(updated.body).toMatchObject({
      id: created.body.id,
      name: newName,
      description: 'after',
      created_at: created.body.created_at,
    });
    expect(Date.parse(updated.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.updated_at));
    const newEtag = updated.headers.get('etag');
    expect(newEtag).toBeTruthy();
    expect(newEtag).not.toBe(etag);

    const stale = await call<Project>(stack, 'PUT', `/v2/projects/${created.body.id}`, {
      body: { name: uniqueName('lost-update') },
      headers: { 'if-match': etag },
    });
    expectProblem(stale, 412, 'precondition_failed');
    const after = await call<Project>(stack, 'GET', `/v2/projects/${created.body.id}`);
    expect(after.body.name).toBe(newName);
    expect(after.headers.get('etag')).toBe(newEtag);
  });

  it('PUT is a full replacement: an absent description becomes null; the template cannot change', async () => {
    const created = await call<Project>(stack, 'POST', '/v2/projects', {
      body: { name: uniqueName('repl'), description: 'x', template: 'blank' },
    });
    expect(created.status).toBe(201);
    const updated = await call<Project>(stack, 'PUT', `/v2/projects/${created.body.id}`, {
      body: { name: created.body.name },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ description: null, template: 'blank' });
    const templateChange = await call<Project>(stack, 'PUT', `/v2/projects/${created.body.id}`, {
      body: { name: created.body.name, template: 'postgres-to-postgres-etl' },
    });
    expectProblem(templateChange, 422, 'validation_failed');
  });

  it('refuses a second project of the same name with 409 name_taken, on create and on rename', async () => {
    const name = uniqueName('dup');
    expect((await call<Project>(stack, 'POST', '/v2/projects', { body: { name } })).status).toBe(201);
    expectProblem(await call<Project>(stack, 'POST', '/v2/projects', { body: { name } }), 409, 'name_taken');
    const other = await call<Project>(stack, 'POST', '/v2/projects', { body: { name: uniqueName('dup-other') } });
    expectProblem(
      await call<Project>(stack, 'PUT', `/v2/projects/${other.body.id}`, { body: { name } }),
      409,
      'name_taken',
    );
  });

  it('enforces the name and description limits (200 and 2000 characters) with 422', async () => {
    expect(
      (
        await call<Project>(stack, 'POST', '/v2/projects', {
          body: { name: 'n'.repeat(200), description: 'd'.repeat(2000) },
        })
      ).status,
    ).toBe(201);
    const res = await call<ProblemDocument>(stack, 'POST', '/v2/projects', {
      body: { name: 'n'.repeat(201), description: 'd'.repeat(2001) },
    });
    expectProblem(res, 422, 'validation_failed');
    expect((res.body.errors ?? []).map((e: { path: string }) => e.path).sort()).toEqual(['description', 'name']);
    expectProblem(await call<Project>(stack, 'POST', '/v2/projects', { body: { name: '' } }), 422, 'validation_failed');
  });

  it('deletes an empty project with 204, after which it is a 404', async () => {
    const created = await call<Project>(stack, 'POST', '/v2/projects', { body: { name: uniqueName('del') } });
    const res = await call(stack, 'DELETE', `/v2/projects/${created.body.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expectProblem(await call<Project>(stack, 'GET', `/v2/projects/${created.body.id}`), 404, 'not_found');
    expectProblem(await call(stack, 'DELETE', `/v2/projects/${created.body.id}`), 404, 'not_found');
  });

  it('refuses to delete a project that holds a pipeline or a connector (409 project_not_empty)', async () => {
    const project = await call<Project>(stack, 'POST', '/v2/projects', { body: { name: uniqueName('full') } });
    const pipeline = await call<Pipeline>(stack, 'POST', '/v2/pipelines', {
      body: { name: uniqueName('p'), project_id: project.body.id, dag: { nodes: [], edges: [] } },
    });
    expect(pipeline.status).toBe(201);
    expectProblem(await call(stack, 'DELETE', `/v2/projects/${project.body.id}`), 409, 'project_not_empty');
    expect((await call(stack, 'DELETE', `/v2/pipelines/${pipeline.body.id}`)).status).toBe(204);

    const connector = await call<Connector>(stack, 'POST', '/v2/connectors', {
      body: {
        name: uniqueName('c'),
        type: 'postgres',
        project_id: project.body.id,
        config: { host: 'warehouse.invalid', database: 'postgres', user: 'postgres' },
      },
    });
    expect(connector.status).toBe(201);
    expectProblem(await call(stack, 'DELETE', `/v2/projects/${project.body.id}`), 409, 'project_not_empty');
    expect((await call<Project>(stack, 'GET', `/v2/projects/${project.body.id}`)).status).toBe(200);
    expect((await call(stack, 'DELETE', `/v2/connectors/${connector.body.id}`)).status).toBe(204);
    expect((await call(stack, 'DELETE', `/v2/projects/${project.body.id}`)).status).toBe(204);
  });

  it('pages through a list with limit and cursor, newest first, nothing skipped or repeated', async () => {
    // A tenant of its own, so the list holds exactly what this test made.
    const tenant = await call<{ tenant: Tenant; api_key: CreatedApiKey }>(stack, 'POST', '/v2/tenants', {
      body: { name: uniqueName('paging') },
    });
    expect(tenant.status).toBe(201);
    const key = tenant.body.api_key.key;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await call<Project>(stack, 'POST', '/v2/projects', { key, body: { name: `page-${i}` } });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 3; page++) {
      const res: ApiResponse<Page<Project>> = await call<Page<Project>>(
        stack,
        'GET',
        `/v2/projects?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key },
      );
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'next_cursor']);
      expect(res.body.data).toHaveLength(2);
      seen.push(...res.body.data.map((p: { id: string }) => p.id));
      cursor = res.body.next_cursor;
      // Inserts between pages must not shift the pages already served.
      if (page === 0)
        expect((await call<Project>(stack, 'POST', '/v2/projects', { key, body: { name: 'page-late' } })).status).toBe(
          201,
        );
    }
    expect(cursor).toBeNull();
    expect(seen).toEqual([...ids].reverse());

    // A cursor belongs to its list: the projects' first one pages no other list.
    const first = (await call<Page<Project>>(stack, 'GET', '/v2/projects?limit=2', { key })).body.next_cursor!;
    for (const list of ['/v2/connectors', '/v2/pipelines', '/v2/jobs', '/v2/webhooks', '/v2/alerts']) {
      const res = await call(stack, 'GET', `${list}?cursor=${encodeURIComponent(first)}`, { key });
      expect([list, res.status, (res.body as { code?: string }).code]).toEqual([list, 400, 'invalid_parameter']);
    }
  });

  it('lists with the default limit of 50 and answers the tenant its own projects only', async () => {
    const res = await call<Page<Project>>(stack, 'GET', '/v2/projects');
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(50);
    const all = await listAll<{ id: string }>(stack, '/v2/projects');
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
  });
});

describe('templates', () => {
  it('lists the templates, each with a description and the pipelines it creates', async () => {
    const res = await call<{ data: Template[] }>(stack, 'GET', '/v2/templates');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const templates = res.body.data;
    expect(templates.length).toBeGreaterThan(0);
    for (const t of templates) {
      expect(t).toMatchObject({
        name: expect.any(String),
        description: expect.any(String),
        pipelines: expect.any(Array),
      });
      for (const p of t.pipelines)
        expect(p).toMatchObject({ name: expect.any(String), description: expect.any(String) });
    }
    expect(templates.some((t: { pipelines: unknown[] }) => t.pipelines.length > 0)).toBe(true);
  });

  it('creates a project from each template together with the pipelines it lists', async () => {
    const res = await call<{ data: Template[] }>(stack, 'GET', '/v2/templates');
    const templates: { name: string; pipelines: { name: string; description: string }[] }[] = Array.isArray(res.body)
      ? res.body
      : res.body.data;
    for (const template of templates) {
      const project = await call<Project>(stack, 'POST', '/v2/projects', {
        body: { name: uniqueName(`tpl-${template.name}`), template: template.name },
      });
      expect(project.status).toBe(201);
      expect(project.body.template).toBe(template.name);
      const pipelines = await listAll<{
        id: string;
        name: string;
        description: string;
        project_id: string;
        version: number;
      }>(stack, `/v2/pipelines?project_id=${project.body.id}`);
      expect(pipelines.map((p) => p.name).sort()).toEqual(template.pipelines.map((p) => p.name).sort());
      for (const p of pipelines) {
        expect(p.project_id).toBe(project.body.id);
        expect(p.version).toBe(1);
        expect(p.description).toBe(template.pipelines.find((t) => t.name === p.name)?.description);
      }
    }
  });

  it('refuses an unknown template with 422 and creates nothing', async () => {
    const name = uniqueName('tpl-unknown');
    const res = await call<Project>(stack, 'POST', '/v2/projects', { body: { name, template: 'no-such-template' } });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const all = await listAll<{ id: string; name: string }>(stack, '/v2/projects');
    expect(all.some((p) => p.name === name)).toBe(false);
  });
});
