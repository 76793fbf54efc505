import { describe, expect, it } from '@jest/globals';
import { dagNodes, linearDag } from '@conduit/testing';
import { PipelinesService } from '../src/pipelines/pipelines.service.js';
import type { PipelineUsage } from '../src/pipelines/pipeline-usage.js';
import { useFreshCatalog, inTransit, newTenant, rejection } from './support/catalog-db.js';

const cat = useFreshCatalog();

async function postgresConnector(tenant: string, name: string): Promise<string> {
  const { data } = await cat.connectors.create(tenant, {
    name,
    type: 'postgres',
    config: inTransit(cat.key, tenant, { host: 'db', database: 'd', user: 'u', password: 's3cret' }),
  });
  return data.id;
}

function copyDag(sourceId: string, sinkId: string): Record<string, unknown> {
  return linearDag(
    dagNodes(sourceId).source('orders', { table: 'orders' }),
    dagNodes(sourceId).transform('clean', 'select * from orders where amount > 0'),
    dagNodes(sinkId).sink('to_dw', 'orders_clean'),
  );
}

describe('pipelines', () => {
  it('stores a valid pipeline at version 1 with its validation', async () => {
    const t = newTenant();
    const con = await postgresConnector(t, 'warehouse');
    const { data, etag } = await cat.pipelines.create(t, {
      name: 'copy',
      description: 'orders',
      dag: copyDag(con, con),
    });
    expect(data).toMatchObject({ name: 'copy', description: 'orders', project_id: null, version: 1, status: 'valid' });
    expect(data.validation).toMatchObject({
      valid: true,
      errors: [],
      execution_order: [['orders'], ['clean'], ['to_dw']],
    });
    expect(data.validation.validated_at).toMatch(/\.\d{3}Z$/);
    expect(etag).toMatch(/^".+"$/);
    expect((await cat.pipelines.get(t, data.id)).data).toEqual(data);
  });

  it('stores a DAG that breaks rules as invalid, and raises the version on each update', async () => {
    const t = newTenant();
    const created = await cat.pipelines.create(t, {
      name: 'draft',
      dag: {
        nodes: [
          { id: 'a', type: 'source', config: { connector_id: 'con_missing', table: 't' } },
          { id: 'b', type: 'nope', config: {} },
        ],
        edges: [{ from: 'a', to: 'a' }],
      },
    });
    expect(created.data.status).toBe('invalid');
    expect(created.data.validation.errors.map((e) => e.code)).toEqual(
      expect.arrayContaining(['unknown_connector', 'unknown_node_type', 'self_loop']),
    );

    const con = await postgresConnector(t, 'db');
    const v2 = await cat.pipelines.update(t, created.data.id, { name: 'draft', dag: copyDag(con, con) }, created.etag);
    expect(v2.data).toMatchObject({ version: 2, status: 'valid', description: null });
    const v3 = await cat.pipelines.update(t, created.data.id, {
      name: 'renamed',
      description: 'x',
      dag: copyDag(con, con),
    });
    expect(v3.data).toMatchObject({ version: 3, name: 'renamed', description: 'x' });
    expect(v3.data.created_at).toBe(created.data.created_at);
    expect((await cat.pipelines.get(t, created.data.id)).data).toEqual(v3.data);

    const stale = await rejection(
      cat.pipelines.update(t, created.data.id, { name: 'late', dag: copyDag(con, con) }, v2.etag),
    );
    expect(stale.code).toBe('precondition_failed');
    expect((await cat.pipelines.get(t, created.data.id)).data.version).toBe(3);
  });

  it('refuses a DAG of the wrong shape with every path at fault, and an unknown project', async () => {
    const t = newTenant();
    const err = await rejection(
      cat.pipelines.create(t, {
        name: 'bad',
        dag: {
          nodes: [
            { id: 'a', type: 'source', config: {} },
            { id: 'b', type: 'transform', config: 'select 1' },
            { id: 3, config: {} },
          ],
          edges: [{ from: 'a' }],
        },
        project_id: 'prj_01JD3V6Y9ZQ8W1S3X5C7E9G2HK',
      }),
    );
    expect(err.code).toBe('validation_failed');
    expect(err.errors?.map((e) => [e.path, e.code])).toEqual(
      expect.arrayContaining([
        ['dag.nodes[1].config', 'invalid_type'],
        ['dag.nodes[2].id', 'invalid_type'],
        ['dag.nodes[2].type', 'required'],
        ['dag.edges[0].to', 'required'],
        ['project_id', 'unknown_project'],
      ]),
    );
    expect((await cat.pipelines.list(t, { limit: 50 })).data).toHaveLength(0);
  });

  it("refuses another tenant's project as unknown", async () => {
    const a = newTenant();
    const b = newTenant();
    const project = await cat.projects.create(a, { name: 'mine' });
    const err = await rejection(
      cat.pipelines.create(b, { name: 'p', dag: { nodes: [], edges: [] }, project_id: project.data.id }),
    );
    expect(err.errors).toEqual([expect.objectContaining({ path: 'project_id', code: 'unknown_project' })]);
  });

  it("treats another tenant's connector as unknown, and hides pipelines across tenants", async () => {
    const a = newTenant();
    const b = newTenant();
    const conA = await postgresConnector(a, 'a-db');
    const pb = await cat.pipelines.create(b, { name: 'p', dag: copyDag(conA, conA) });
    expect(pb.data.status).toBe('invalid');
    expect(pb.data.validation.errors.filter((e) => e.code === 'unknown_connector')).toHaveLength(2);
    const pa = await cat.pipelines.create(a, { name: 'p', dag: copyDag(conA, conA) });
    expect(pa.data.status).toBe('valid');

    for (const op of [
      cat.pipelines.get(b, pa.data.id),
      cat.pipelines.update(b, pa.data.id, { name: 'x', dag: { nodes: [], edges: [] } }),
      cat.pipelines.delete(b, pa.data.id),
      cat.pipelines.validate(b, pa.data.id),
    ]) {
      expect((await rejection(op)).code).toBe('not_found');
    }
    expect((await cat.pipelines.list(a, { limit: 50 })).data.map((p) => p.id)).toEqual([pa.data.id]);
    expect((await cat.pipelines.list(b, { limit: 50 })).data.map((p) => p.id)).toEqual([pb.data.id]);
  });

  it('re-validates on demand and stores the result (a deleted connector makes it invalid)', async () => {
    const t = newTenant();
    const con = await postgresConnector(t, 'db');
    const { data } = await cat.pipelines.create(t, { name: 'p', dag: copyDag(con, con) });
    expect(data.status).toBe('valid');
    await cat.connectors.delete(t, con);
    const validation = await cat.pipelines.validate(t, data.id);
    expect(validation.valid).toBe(false);
    expect(validation.errors.map((e) => e.code)).toContain('unknown_connector');
    const stored = (await cat.pipelines.get(t, data.id)).data;
    expect(stored.status).toBe('invalid');
    expect(stored.validation).toEqual(validation);
    expect(stored.version).toBe(1);
  });

  it('keeps names unique per project and filters the list by project', async () => {
    const t = newTenant();
    const p1 = await cat.projects.create(t, { name: 'one' });
    const p2 = await cat.projects.create(t, { name: 'two' });
    const empty = { nodes: [], edges: [] };
    const a = await cat.pipelines.create(t, { name: 'load', dag: empty, project_id: p1.data.id });
    const b = await cat.pipelines.create(t, { name: 'load', dag: empty, project_id: p2.data.id });
    const c = await cat.pipelines.create(t, { name: 'load', dag: empty });
    expect((await rejection(cat.pipelines.create(t, { name: 'load', dag: empty, project_id: p1.data.id }))).code).toBe(
      'name_taken',
    );
    expect((await rejection(cat.pipelines.create(t, { name: 'load', dag: empty }))).code).toBe('name_taken');
    expect((await cat.pipelines.list(t, { limit: 50, project_id: p1.data.id })).data.map((p) => p.id)).toEqual([
      a.data.id,
    ]);
    expect((await cat.pipelines.list(t, { limit: 50 })).data.map((p) => p.id)).toEqual([
      c.data.id,
      b.data.id,
      a.data.id,
    ]);
  });

  it('deletes a pipeline', async () => {
    const t = newTenant();
    const { data } = await cat.pipelines.create(t, { name: 'gone', dag: { nodes: [], edges: [] } });
    await expect(cat.pipelines.delete(t, data.id)).resolves.toBeNull();
    expect((await rejection(cat.pipelines.get(t, data.id))).code).toBe('not_found');
    expect((await rejection(cat.pipelines.delete(t, data.id))).code).toBe('not_found');
  });

  it('refuses to delete a pipeline that a job uses (the PipelineUsage seam)', async () => {
    const t = newTenant();
    const { data } = await cat.pipelines.create(t, { name: 'used', dag: { nodes: [], edges: [] } });
    const usedByJob: PipelineUsage = {
      isInUse: async (tenantId, pipelineId) => tenantId === t && pipelineId === data.id,
    };
    const guarded = new PipelinesService(cat.ds, usedByJob);
    expect((await rejection(guarded.delete(t, data.id))).code).toBe('pipeline_in_use');
    expect((await cat.pipelines.get(t, data.id)).data.id).toBe(data.id);
  });
});

describe('a page of pipelines', () => {
  it('holds at most its bytes of DAGs and validations (its first pipeline whatever its size), then a cursor', async () => {
    const t = newTenant();
    const con = await postgresConnector(t, 'warehouse');
    const { sql } = dagNodes(con);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const dag = linearDag(sql('wide', `select '${'x'.repeat(20_000)}' as filler_${i}`));
      ids.unshift((await cat.pipelines.create(t, { name: `wide ${i}`, dag })).data.id);
    }
    // Each is ~20 KB of DAG: two fit in 50 KB, and the next pages take up the rest in order.
    const seen: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await cat.pipelines.list(t, { limit: 50, ...(cursor ? { cursor } : {}) }, 50_000);
      seen.push(page.data.map((p) => p.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)]);
    // A page smaller than one pipeline still answers that one.
    expect((await cat.pipelines.list(t, { limit: 50 }, 1)).data.map((p) => p.id)).toEqual([ids[0]]);
    // Within the bytes, the limit decides as before.
    const two = await cat.pipelines.list(t, { limit: 2 });
    expect(two.data.map((p) => p.id)).toEqual(ids.slice(0, 2));
    expect(two.next_cursor).not.toBeNull();
  });
});
