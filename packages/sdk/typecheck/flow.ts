// A whole flow with @conduit/sdk as a user writes it: no cast, no `any`. Compiled under tsc --strict (with
// exactOptionalPropertyTypes) by test/type-flow.test.ts against the built package; never run.
import { ConduitApiError, createConduitClient, etagOf, type Run, type RunLogLine } from '@conduit/sdk';

export async function nightlyOrders(baseUrl: string, apiKey: string): Promise<{ run: Run; logs: RunLogLine[] }> {
  const client = createConduitClient({ baseUrl, apiKey, retry: { maxAttempts: 5, maxDelayMs: 10_000 } });

  const project = await client.projects.create({ name: 'Sales analytics', description: 'Orders into the warehouse.' });
  const connector = await client.connectors.create({
    name: 'shop-db',
    type: 'postgres',
    project_id: project.id,
    config: {
      host: 'shop-db.internal',
      database: 'shop',
      user: 'conduit_reader',
      password: 'correct-horse',
      ssl: 'require',
    },
  });
  const tested = await client.connectors.test(connector.id);
  if (!tested.ok)
    throw new Error(
      `${tested.error_class ?? 'error'}: ${tested.checks.map((c) => `${c.name} ${c.ok ? 'ok' : c.message}`).join(', ')}`,
    );

  const pipeline = await client.pipelines.create({
    name: 'orders-to-warehouse',
    project_id: project.id,
    dag: {
      nodes: [
        { id: 'orders', type: 'source', config: { connector_id: connector.id, table: 'orders' } },
        { id: 'clean', type: 'transform', config: { sql: 'select * from orders where amount > 0' } },
        {
          id: 'to_dw',
          type: 'sink',
          config: { connector_id: connector.id, table: 'orders_clean', mode: 'upsert', key: ['id'] },
        },
      ],
      edges: [
        { from: 'orders', to: 'clean' },
        { from: 'clean', to: 'to_dw' },
      ],
    },
  });
  if (pipeline.status === 'invalid') throw new Error(pipeline.validation.errors.map((e) => e.message).join('; '));

  const job = await client.jobs.create({
    name: 'nightly-orders',
    pipeline_id: pipeline.id,
    schedule: '0 2 * * *',
    timezone: 'Europe/Paris',
  });

  let triggered: Run;
  try {
    triggered = await client.jobs.trigger(job.id, { parameters: { since_days: 7 } });
  } catch (err) {
    if (err instanceof ConduitApiError && err.code === 'run_in_progress')
      throw new Error('already running', { cause: err });
    if (err instanceof ConduitApiError)
      throw new Error(err.errors.map((e) => `${e.path}: ${e.message}`).join('\n') || err.detail, { cause: err });
    throw err;
  }

  const logs: RunLogLine[] = [];
  for await (const line of client.runs.streamLogs(triggered.id, { jobId: job.id, level: 'info' })) logs.push(line);
  const run = await client.waitForRun(triggered.id, {
    jobId: job.id,
    timeoutMs: 60_000,
    onUpdate: (r) => r.nodes.forEach((n) => n.rows_out),
  });
  const written: number = run.stats.rows_written;

  for await (const earlier of client.runs.list({ jobId: job.id, status: 'failed' })) {
    const failedNode: string | undefined = earlier.nodes.find((n) => n.status === 'failed')?.id;
    if (failedNode !== undefined && written >= 0)
      logs.push(...(await client.runs.logs(earlier.id, { jobId: job.id, nodeId: failedNode }).toArray(10)));
  }
  const metrics = await client.monitoring.metrics({ jobId: job.id, since: '7d' });
  if (metrics.success_rate !== null && metrics.success_rate < 0.9) logs.length = 0;

  // Someone else's change in between is a 412, not a lost update.
  const current = await client.jobs.get(job.id);
  const version = etagOf(current);
  const { name, pipeline_id, description, timezone, concurrency_policy, parameters } = current;
  const moved = { name, pipeline_id, description, timezone, concurrency_policy, parameters, schedule: '0 3 * * *' };
  if (version !== undefined) await client.jobs.update(job.id, moved, { ifMatch: version });
  for await (const hook of client.webhooks.list())
    if (hook.status === 'disabled') await client.webhooks.delete(hook.id);
  return { run, logs };
}
