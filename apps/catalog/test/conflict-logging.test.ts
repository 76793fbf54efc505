// An expected conflict (a taken name: 409 name_taken; a project still in use: 409 project_not_empty) is no error line:
// TypeORM's failed query is logged at debug (service-kit's TypeOrmPinoLogger). Any other failed query stays an error.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import type { DataSource } from 'typeorm';
import { migrate } from '@conduit/service-kit';
import { requirePostgres } from '@conduit/testing';
import { createCatalogDataSource } from '../src/database/catalog-data-source.js';
import { NoPipelineUsage } from '../src/pipelines/pipeline-usage.js';
import { PipelinesService } from '../src/pipelines/pipelines.service.js';
import { ProjectsService } from '../src/projects/projects.service.js';
import { DATABASE_URL, newTenant, rejection } from './support/catalog-db.js';

interface Line {
  level: number;
  msg: string;
  err?: { code?: string };
}

const lines: Line[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const text of chunk.toString('utf8').split('\n')) if (text) lines.push(JSON.parse(text) as Line);
    done();
  },
});
const schema = `catalog_test_${randomUUID().replace(/-/g, '')}`;
let ds: DataSource;
let projects: ProjectsService;
let pipelines: PipelinesService;

beforeAll(async () => {
  await requirePostgres('catalog');
  ds = createCatalogDataSource({ url: DATABASE_URL, schema, poolSize: 2, logger: pino({ level: 'debug' }, sink) });
  await migrate(ds);
  pipelines = new PipelinesService(ds, new NoPipelineUsage());
  projects = new ProjectsService(ds, pipelines);
});

afterAll(async () => {
  await ds?.query(`DROP SCHEMA "${schema}" CASCADE`);
  await ds?.destroy();
});

const failedQueries = (from: number) => lines.slice(from).filter((line) => line.msg === 'query failed');

describe("TypeORM's log of a failed query", () => {
  it('is debug for name_taken and project_not_empty', async () => {
    const t = newTenant();
    const project = await projects.create(t, { name: 'taken' });
    await pipelines.create(t, { name: 'p', dag: { nodes: [], edges: [] }, project_id: project.data.id });
    const from = lines.length;
    expect((await rejection(projects.create(t, { name: 'taken' }))).code).toBe('name_taken');
    expect((await rejection(projects.delete(t, project.data.id))).code).toBe('project_not_empty');
    expect(failedQueries(from).map((line) => [line.level, line.err?.code])).toEqual([
      [20, '23505'],
      [20, '23503'],
    ]);
  });

  it('stays error for any other failure', async () => {
    const from = lines.length;
    await expect(ds.query('SELECT no_such_column FROM projects')).rejects.toThrow();
    expect(failedQueries(from).map((line) => line.level)).toEqual([50]);
  });
});
