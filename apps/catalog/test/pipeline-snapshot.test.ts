import type { PipelineValidation } from '@conduit/contracts';
import { freshCatalog, inTransit, newTenant, type CatalogUnderTest } from './support/catalog-db.js';

/**
 * The snapshot a trigger takes re-validates the pipeline every time but stores the result only when it differs from
 * the stored one. Each test changes one thing the validation depends on and checks that the snapshot (what decides a
 * trigger's 409 pipeline_invalid) and the stored validation follow, and that nothing is written when nothing changed.
 */
describe('pipeline snapshot', () => {
  let catalog: CatalogUnderTest;
  beforeAll(async () => {
    catalog = await freshCatalog();
  });
  afterAll(async () => {
    await catalog.drop();
  });

  const pgConfig = { host: '127.0.0.1', port: 5432, database: 'postgres', user: 'postgres', password: 'pw-snap' };

  /** A tenant with a postgres connector and a pipeline reading from it and running SQL over it. */
  async function pipelineOnConnector() {
    const t = newTenant();
    const config = inTransit(catalog.key, t, pgConfig);
    const con = (await catalog.connectors.create(t, { name: 'pg', type: 'postgres', config })).data;
    const dag = {
      nodes: [
        { id: 'src', type: 'source', config: { connector_id: con.id, table: 'a' } },
        { id: 'q', type: 'sql', config: { connector_id: con.id, sql: 'select 1' } },
      ],
      edges: [{ from: 'src', to: 'q' }],
    };
    const pipeline = (await catalog.pipelines.create(t, { name: 'p', dag })).data;
    return { t, con, dag, pipeline };
  }

  /** The stored row as the database holds it; xmin changes with every write of the row. */
  async function stored(id: string): Promise<{ xmin: string; status: string; validation: PipelineValidation }> {
    const rows: { xmin: string; status: string; validation: PipelineValidation }[] = await catalog.ds.query(
      `SELECT xmin::text AS xmin, status, validation FROM "${catalog.schema}".pipelines WHERE id = $1`,
      [id],
    );
    return rows[0]!;
  }

  it('writes nothing when the validation is what is stored, and answers the same', async () => {
    const { t, con, dag, pipeline } = await pipelineOnConnector();
    // The create stored this very validation (no recorded schemas): the first snapshot already writes nothing.
    const before = await stored(pipeline.id);
    const first = await catalog.pipelines.snapshot(t, pipeline.id);
    const second = await catalog.pipelines.snapshot(t, pipeline.id);
    const expected = {
      id: pipeline.id,
      version: 1,
      dag,
      valid: true,
      errors: [],
      connectors: [{ id: con.id, version: 1 }],
    };
    expect(first).toEqual(expected);
    expect(second).toEqual(expected);
    expect(await stored(pipeline.id)).toEqual(before);
  });

  it('answers and stores unknown_connector once a referenced connector is deleted', async () => {
    const { t, con, pipeline } = await pipelineOnConnector();
    await catalog.pipelines.snapshot(t, pipeline.id);
    await catalog.connectors.delete(t, con.id);
    const snap = await catalog.pipelines.snapshot(t, pipeline.id);
    expect(snap.valid).toBe(false);
    expect(snap.errors.map((e) => e.code)).toEqual(['unknown_connector', 'unknown_connector']);
    expect(snap.connectors).toEqual([]);
    const row = await stored(pipeline.id);
    expect(row.status).toBe('invalid');
    expect(row.validation.errors.map((e) => e.code)).toEqual(['unknown_connector', 'unknown_connector']);
  });

  it('answers and stores connector_unfit once a connector changed to a type without the role', async () => {
    const { t, con, pipeline } = await pipelineOnConnector();
    await catalog.pipelines.snapshot(t, pipeline.id);
    // The API keeps a connector's type; a type can still change under the pipeline (a restore, a manual fix), and
    // validation must see it. `s3` can be a source but cannot run SQL.
    await catalog.ds.query(`UPDATE "${catalog.schema}".connectors SET type = 's3' WHERE id = $1`, [con.id]);
    const snap = await catalog.pipelines.snapshot(t, pipeline.id);
    expect(snap.valid).toBe(false);
    expect(snap.errors.map((e) => e.code)).toEqual(['connector_unfit']);
    expect((await stored(pipeline.id)).status).toBe('invalid');

    // And back: valid again, stored as such.
    await catalog.ds.query(`UPDATE "${catalog.schema}".connectors SET type = 'postgres' WHERE id = $1`, [con.id]);
    expect((await catalog.pipelines.snapshot(t, pipeline.id)).valid).toBe(true);
    expect(await stored(pipeline.id)).toMatchObject({ status: 'valid', validation: { valid: true, errors: [] } });
  });

  it("carries a connector's new revision, with no write when the validation stays the same", async () => {
    const { t, con, pipeline } = await pipelineOnConnector();
    await catalog.pipelines.snapshot(t, pipeline.id);
    const before = await stored(pipeline.id);
    await catalog.connectors.update(t, con.id, { name: 'pg2', config: { ...con.config, database: 'other' } });
    const snap = await catalog.pipelines.snapshot(t, pipeline.id);
    expect(snap.valid).toBe(true);
    expect(snap.connectors).toEqual([{ id: con.id, version: 2 }]);
    expect(await stored(pipeline.id)).toEqual(before);
  });

  it("validates the pipeline's current version: an update's DAG and its connectors", async () => {
    const { t, pipeline } = await pipelineOnConnector();
    await catalog.pipelines.snapshot(t, pipeline.id);
    const other = (
      await catalog.connectors.create(t, {
        name: 'other',
        type: 'postgres',
        config: inTransit(catalog.key, t, pgConfig),
      })
    ).data;
    const dag = { nodes: [{ id: 'only', type: 'source', config: { connector_id: other.id, table: 'b' } }], edges: [] };
    await catalog.pipelines.update(t, pipeline.id, { name: 'p', dag });
    const snap = await catalog.pipelines.snapshot(t, pipeline.id);
    expect(snap).toMatchObject({ version: 2, dag, valid: true, connectors: [{ id: other.id, version: 1 }] });

    await catalog.connectors.delete(t, other.id);
    expect(await catalog.pipelines.snapshot(t, pipeline.id)).toMatchObject({
      version: 2,
      valid: false,
      errors: [expect.objectContaining({ code: 'unknown_connector' })],
    });
  });

  it('replaces a stored validation that checked recorded schemas with its own, as every trigger did', async () => {
    const { t, pipeline } = await pipelineOnConnector();
    // What a validation against recorded columns left: an error the snapshot (which binds nothing) does not make.
    const recorded = {
      valid: false,
      errors: [{ code: 'unknown_column', message: 'node "q": the SQL names a column its inputs do not have: x' }],
      warnings: [],
      execution_order: [['src'], ['q']],
      validated_at: new Date().toISOString(),
    };
    await catalog.ds.query(
      `UPDATE "${catalog.schema}".pipelines SET status = 'invalid', validation = $2 WHERE id = $1`,
      [pipeline.id, JSON.stringify(recorded)],
    );
    const snap = await catalog.pipelines.snapshot(t, pipeline.id);
    expect(snap.valid).toBe(true);
    expect(await stored(pipeline.id)).toMatchObject({ status: 'valid', validation: { valid: true, errors: [] } });
  });
});
