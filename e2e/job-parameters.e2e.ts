import pg from 'pg';
import type { Job, Page, ProblemDocument, Run } from '@conduit/contracts';
import { type ApiResponse, call, expectProblem } from './support/client.js';
import { create, listAll, triggerRun, uniqueName } from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';

// A job's and a trigger's parameters are at most 64 KiB of JSON; a page of jobs or runs at most 8 MiB of them, also
// with rows stored before that bound (written here straight into the scheduler's tables).
const PARAMETERS_MAX_BYTES = 64 * 1024;
const PAGE_BYTES = 8 * 1024 * 1024;

/** The platform's own database. */
let db: pg.Client;
// Declared before the stack's hooks, so it runs before the stack stops (and its database goes).
afterAll(async () => {
  await db?.end();
});

const target = useTargetStack({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
let pipelineId: string;

beforeAll(async () => {
  db = new pg.Client({ connectionString: target.stack.databaseUrl });
  await db.connect();
  const dag = {
    nodes: [{ id: 'one', type: 'source', config: { connector_id: target.connectorId, query: 'select 1 as n' } }],
    edges: [],
  };
  pipelineId = (await create(target.stack, '/v2/pipelines', { name: uniqueName('quick'), dag })).id;
});

/** Parameters of exactly `bytes` bytes as JSON text. */
function parametersOf(bytes: number): Record<string, string> {
  return { blob: 'x'.repeat(bytes - '{"blob":""}'.length) };
}

function expectTooLong(res: ApiResponse<ProblemDocument>): void {
  expectProblem(res, 422, 'validation_failed');
  expect(res.body.errors).toEqual([
    {
      path: 'parameters',
      code: 'too_long',
      message: `must be at most ${PARAMETERS_MAX_BYTES} bytes (64 KiB) as JSON text (got ${PARAMETERS_MAX_BYTES + 1})`,
    },
  ]);
}

/** Every page of a list at limit=200, each checked to hold at most 8 MiB (and its envelope), as the ids it held. */
async function pagesOf(path: string): Promise<string[][]> {
  const seen: string[][] = [];
  let cursor: string | null = null;
  do {
    const res: ApiResponse<Page<{ id: string }>> = await call(
      target.stack,
      'GET',
      `${path}?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(res.status).toBe(200);
    expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(PAGE_BYTES + 200_000);
    seen.push(res.body.data.map((item) => item.id));
    cursor = res.body.next_cursor;
  } while (cursor);
  return seen;
}

describe('parameters', () => {
  it('over 64 KiB are a 422 naming the field on Create Job, Update Job and Trigger Run, and change nothing', async () => {
    const over = parametersOf(PARAMETERS_MAX_BYTES + 1);
    const name = uniqueName('big');
    expectTooLong(
      await call<ProblemDocument>(target.stack, 'POST', '/v2/jobs', {
        body: { name, pipeline_id: pipelineId, parameters: over },
      }),
    );
    expect((await listAll<Job>(target.stack, '/v2/jobs')).some((j) => j.name === name)).toBe(false);

    const job = await create<Job>(target.stack, '/v2/jobs', {
      name: uniqueName('at-limit'),
      pipeline_id: pipelineId,
      parameters: parametersOf(PARAMETERS_MAX_BYTES),
    });
    expectTooLong(
      await call<ProblemDocument>(target.stack, 'PUT', `/v2/jobs/${job.id}`, {
        body: { name: job.name, pipeline_id: pipelineId, parameters: over },
      }),
    );
    const now = await call<Job>(target.stack, 'GET', `/v2/jobs/${job.id}`);
    expect(now.body).toMatchObject({ parameters: job.parameters, updated_at: job.updated_at });
    expectTooLong(
      await call<ProblemDocument>(target.stack, 'POST', `/v2/jobs/${job.id}/run`, { body: { parameters: over } }),
    );
    expect((await call<Page<Run>>(target.stack, 'GET', `/v2/jobs/${job.id}/runs`)).body.data).toEqual([]);
  });
});

describe('a page of jobs and a page of runs', () => {
  it('hold at most 8 MiB (the first item whatever its size); the cursor goes on from where the page stopped', async () => {
    const jobs: string[] = [];
    for (let i = 0; i < 12; i++)
      jobs.unshift(
        (
          await create<Job>(target.stack, '/v2/jobs', {
            name: uniqueName('legacy'),
            pipeline_id: pipelineId,
            concurrency_policy: 'allow',
          })
        ).id,
      );
    const jobId = jobs[0]!;
    const runs: string[] = [];
    for (let i = 0; i < 10; i++) runs.unshift((await triggerRun(target.stack, jobId, { parameters: { i } })).id);
    // ~1 MB each, as a scheduler stored them before the bound: 8 fit in 8 MiB, a ninth would not.
    await db.query(
      `UPDATE scheduler.jobs SET parameters = jsonb_build_object('blob', repeat('x', 1000000)) WHERE id = ANY($1)`,
      [jobs],
    );
    await db.query(
      `UPDATE scheduler.runs SET parameters = jsonb_build_object('blob', repeat('x', 1000000)) WHERE job_id = $1`,
      [jobId],
    );
    const jobPages = await pagesOf('/v2/jobs');
    expect(jobPages[0]).toEqual(jobs.slice(0, 8));
    expect(jobPages.flat().filter((id) => jobs.includes(id))).toEqual(jobs);
    expect(new Set(jobPages.flat()).size).toBe(jobPages.flat().length);

    expect(await pagesOf(`/v2/jobs/${jobId}/runs`)).toEqual([runs.slice(0, 8), runs.slice(8)]);
  });
});
