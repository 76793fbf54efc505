import { describe, expect, it } from '@jest/globals';
import { AppError } from '@conduit/contracts';
import { useFreshCatalog, newTenant, rejection } from './support/catalog-db.js';

const cat = useFreshCatalog();

describe('projects', () => {
  it('creates, reads, replaces and deletes a project', async () => {
    const t = newTenant();
    const created = await cat.projects.create(t, { name: 'Analytics', description: 'dashboards' });
    expect(created.data).toMatchObject({ name: 'Analytics', description: 'dashboards', template: null });
    expect(created.data.id).toMatch(/^prj_/);
    expect(created.data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(created.etag).toMatch(/^".+"$/);

    const got = await cat.projects.get(t, created.data.id);
    expect(got.data).toEqual(created.data);
    expect(got.etag).toBe(created.etag);

    const updated = await cat.projects.update(t, created.data.id, { name: 'Analytics 2' }, got.etag);
    expect(updated.data).toMatchObject({ name: 'Analytics 2', description: null });
    expect(updated.etag).not.toBe(got.etag);

    await expect(cat.projects.delete(t, created.data.id)).resolves.toBeNull();
    expect((await rejection(cat.projects.get(t, created.data.id))).code).toBe('not_found');
  });

  it('answers precondition_failed when If-Match does not match, and keeps the project', async () => {
    const t = newTenant();
    const { data, etag } = await cat.projects.create(t, { name: 'p' });
    const err = await rejection(cat.projects.update(t, data.id, { name: 'q' }, '"stale"'));
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('precondition_failed');
    expect((await cat.projects.get(t, data.id)).data.name).toBe('p');
    await expect(cat.projects.update(t, data.id, { name: 'q' }, `W/"x", ${etag}`)).resolves.toBeDefined();
  });

  it("hides one tenant's projects from another", async () => {
    const a = newTenant();
    const b = newTenant();
    const pa = await cat.projects.create(a, { name: 'same name' });
    const pb = await cat.projects.create(b, { name: 'same name' });
    for (const op of [
      cat.projects.get(b, pa.data.id),
      cat.projects.update(b, pa.data.id, { name: 'stolen' }),
      cat.projects.delete(b, pa.data.id),
    ]) {
      expect((await rejection(op)).code).toBe('not_found');
    }
    const listA = await cat.projects.list(a, { limit: 50 });
    const listB = await cat.projects.list(b, { limit: 50 });
    expect(listA.data.map((p) => p.id)).toEqual([pa.data.id]);
    expect(listB.data.map((p) => p.id)).toEqual([pb.data.id]);
    expect((await cat.projects.get(a, pa.data.id)).data.name).toBe('same name');
  });

  it('answers not_found for a malformed id', async () => {
    const t = newTenant();
    for (const id of ['nope', 'prj_', 'pln_01JD3V6Y9ZQ8W1S3X5C7E9G2HK', `prj_${'x'.repeat(5000)}`]) {
      expect((await rejection(cat.projects.get(t, id))).code).toBe('not_found');
    }
  });

  it('lets exactly one of 20 concurrent creates of one name win', async () => {
    const t = newTenant();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => cat.projects.create(t, { name: 'contested' })),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(19);
    for (const r of lost) expect((r.reason as AppError).code).toBe('name_taken');
    expect((await cat.projects.list(t, { limit: 50 })).data).toHaveLength(1);
  });

  it("answers name_taken when an update takes another project's name", async () => {
    const t = newTenant();
    await cat.projects.create(t, { name: 'one' });
    const two = await cat.projects.create(t, { name: 'two' });
    expect((await rejection(cat.projects.update(t, two.data.id, { name: 'one' }))).code).toBe('name_taken');
  });

  it('refuses to delete a project while pipelines or connectors belong to it', async () => {
    const t = newTenant();
    const project = await cat.projects.create(t, { name: 'busy' });
    const pipeline = await cat.pipelines.create(t, {
      name: 'p',
      dag: { nodes: [], edges: [] },
      project_id: project.data.id,
    });
    expect((await rejection(cat.projects.delete(t, project.data.id))).code).toBe('project_not_empty');
    await cat.pipelines.delete(t, pipeline.data.id);

    const connector = await cat.connectors.create(t, {
      name: 'c',
      type: 'postgres',
      config: { host: 'db', database: 'd', user: 'u' },
      project_id: project.data.id,
    });
    expect((await rejection(cat.projects.delete(t, project.data.id))).code).toBe('project_not_empty');
    await cat.connectors.delete(t, connector.data.id);

    await expect(cat.projects.delete(t, project.data.id)).resolves.toBeNull();
  });

  it("creates the template's pipelines in the project, in the same transaction", async () => {
    const t = newTenant();
    const project = await cat.projects.create(t, { name: 'support', template: 'support-ticket-routing' });
    expect(project.data.template).toBe('support-ticket-routing');
    const pipelines = await cat.pipelines.list(t, { limit: 50, project_id: project.data.id });
    expect(pipelines.data.map((p) => p.name)).toEqual(['ticket-routing']);
    const [routing] = pipelines.data;
    expect(routing?.status).toBe('invalid');
    expect(routing?.validation.errors.map((e) => e.code)).toContain('unknown_connector');
    expect((routing?.dag['nodes'] as { type: string }[]).map((n) => n.type)).toContain('decision');

    // The same template again in another project: pipeline names are unique per project.
    const second = await cat.projects.create(t, { name: 'support 2', template: 'support-ticket-routing' });
    expect((await cat.pipelines.list(t, { limit: 50, project_id: second.data.id })).data).toHaveLength(1);

    // A taken project name rolls the whole creation back: no orphan pipelines.
    const before = (await cat.pipelines.list(t, { limit: 200 })).data.length;
    expect(
      (await rejection(cat.projects.create(t, { name: 'support', template: 'postgres-to-postgres-etl' }))).code,
    ).toBe('name_taken');
    expect((await cat.pipelines.list(t, { limit: 200 })).data).toHaveLength(before);
  });

  it('refuses an unknown template with a field error', async () => {
    const t = newTenant();
    const err = await rejection(cat.projects.create(t, { name: 'x', template: 'no-such-template' }));
    expect(err.code).toBe('validation_failed');
    expect(err.errors).toEqual([expect.objectContaining({ path: 'template', code: 'unknown_template' })]);
    expect((await cat.projects.list(t, { limit: 50 })).data).toHaveLength(0);
  });

  it('pages newest first, skipping and repeating nothing while others insert', async () => {
    const t = newTenant();
    const initial: string[] = [];
    for (let i = 0; i < 15; i++) initial.push((await cat.projects.create(t, { name: `seed ${i}` })).data.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    let extra = 0;
    do {
      const page = await cat.projects.list(t, { limit: 5, ...(cursor ? { cursor } : {}) });
      seen.push(...page.data.map((p) => p.id));
      cursor = page.next_cursor ?? undefined;
      pages++;
      // Inserts between pages land before the cursor, so they must not shift what comes next.
      await Promise.all([0, 1].map(() => cat.projects.create(t, { name: `late ${extra++}` })));
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...initial].reverse());
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('answers invalid_parameter for a cursor it did not issue', async () => {
    const err = await rejection(cat.projects.list(newTenant(), { limit: 5, cursor: 'not-a-cursor' }));
    expect(err.code).toBe('invalid_parameter');
  });

  it("refuses a hand-made cursor whose key is no project id, and pages another tenant's id in the caller's rows", async () => {
    const t = newTenant();
    const mine = (await cat.projects.create(t, { name: 'mine' })).data.id;
    const theirs = (await cat.projects.create(newTenant(), { name: 'theirs' })).data.id;
    const pipeline = 'pln_01JD3V6Y9ZQ8W1S3X5C7E9G2HK';
    const handMade = (after: string) => Buffer.from(JSON.stringify({ after, list: 'projects' })).toString('base64url');
    for (const after of [pipeline, "xx'", 'zzzz'])
      expect((await rejection(cat.projects.list(t, { limit: 5, cursor: handMade(after) }))).code).toBe(
        'invalid_parameter',
      );
    // Not signed: a well-formed id of another tenant's is a position like any other, among the caller's own rows.
    const after = await cat.projects.list(t, { limit: 5, cursor: handMade(theirs) });
    expect(after.data.map((p) => p.id)).toEqual([mine]);
    expect((await cat.projects.list(t, { limit: 5, cursor: handMade(mine) })).data).toEqual([]);
  });
});
