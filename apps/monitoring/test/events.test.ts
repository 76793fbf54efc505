import { describe, expect, it } from '@jest/globals';
import { useMonitoringSuite } from './support/monitoring-suite.js';
import { QUEUES, alertEventSchema, type Alert, type AlertEvent, type Page, type RunEvent } from '@conduit/contracts';
import { newId, unbatchedJobs } from '@conduit/service-kit';
import { newTenant } from './support/db.js';
import { waitFor } from '@conduit/testing';
import { newRun, runEvent } from './support/run-events.js';
import { MonitoringEvents } from '../src/events/monitoring-events.js';
import { recordAndApply } from '../src/events/event-statement.js';
import { pooledStatements, transactionStatements } from '../src/common/sql-runner.js';

const suite = useMonitoringSuite({ queues: [QUEUES.eventsMonitoring, QUEUES.eventsWebhooks] });
const { caller, publish } = suite;
const eventsQueue = suite.queue(QUEUES.eventsMonitoring);
const webhooksQueue = suite.queue(QUEUES.eventsWebhooks);

async function factOf(runId: string): Promise<Record<string, unknown> | undefined> {
  const rows = await suite.ds.query<Record<string, unknown>[]>(
    `SELECT status, attempt, duration_ms::int, rows_read::int, rows_written::int FROM run_facts WHERE run_id = $1`,
    [runId],
  );
  return rows[0];
}

async function alertsOf(tenant: string, query: Record<string, unknown> = {}): Promise<Page<Alert>> {
  return caller.ok<Page<Alert>>(tenant, 'monitoring.alerts.list', { query: { limit: 50, ...query } });
}

async function alertEventsFor(alertId: string): Promise<AlertEvent[]> {
  const jobs = unbatchedJobs(await webhooksQueue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']));
  return jobs
    .map((j) => ({ id: j.id, event: alertEventSchema.parse(j.data) }))
    .filter(({ event }) => event.alert.id === alertId)
    .map(({ id, event }) => {
      expect(id).toBe(event.event_id);
      return event;
    })
    .sort((a, b) => a.created_at.localeCompare(b.created_at));
}

function runsCounted(status: string): Promise<number> {
  return suite.monitoring.registry
    .getSingleMetric('conduit_runs_total')!
    .get()
    .then((m) => m.values.find((v) => v.labels['status'] === status)?.value ?? 0);
}

describe('run facts', () => {
  it('keep the latest state of a run, ignoring duplicates and stale events', async () => {
    const t = newTenant();
    const run = newRun(newId('job'));
    const succeededBefore = await runsCounted('succeeded');
    const queued = runEvent(t, run, 'queued');
    const running = runEvent(t, run, 'running');
    const succeeded = runEvent(t, run, 'succeeded', { durationMs: 1234, rows: { rows_read: 10, rows_written: 9 } });
    await publish(queued, running, succeeded);
    expect(await factOf(run.id)).toEqual({
      status: 'succeeded',
      attempt: 1,
      duration_ms: 1234,
      rows_read: 10,
      rows_written: 9,
    });
    expect(await runsCounted('succeeded')).toBe(succeededBefore + 1);

    // A late running event (another event id) and a redelivery of the final one change nothing.
    await publish(runEvent(t, run, 'running', { attempt: 2 }));
    const redelivered = { ...succeeded };
    await eventsQueue.add(redelivered.type, redelivered, { jobId: `${redelivered.event_id}-again` });
    await waitFor(async () => (await eventsQueue.getJob(`${redelivered.event_id}-again`))?.isCompleted(), {
      what: 'redelivery processed',
    });
    expect(await factOf(run.id)).toMatchObject({ status: 'succeeded', attempt: 1 });
    expect(await runsCounted('succeeded')).toBe(succeededBefore + 1);
  });

  it('take a later attempt, and a final event that overtook the earlier ones', async () => {
    const t = newTenant();
    const run = newRun(newId('job'));
    await publish(runEvent(t, run, 'running'), runEvent(t, run, 'running', { attempt: 2 }));
    expect(await factOf(run.id)).toMatchObject({ status: 'running', attempt: 2 });
    const other = newRun(newId('job'));
    await publish(runEvent(t, other, 'failed'), runEvent(t, other, 'queued'));
    expect(await factOf(other.id)).toMatchObject({ status: 'failed' });
  });
});

describe('events applied in batches', () => {
  it('give each event of a batch the outcome applying them one by one would give', async () => {
    const t = newTenant();
    const events = suite.monitoring.app.get(MonitoringEvents);
    const counted = async () => ({
      queued: await runsCounted('queued'),
      running: await runsCounted('running'),
      succeeded: await runsCounted('succeeded'),
    });
    const before = await counted();
    const run = newRun(newId('job'));
    const queued = runEvent(t, run, 'queued');
    const running = runEvent(t, run, 'running');
    const succeeded = runEvent(t, run, 'succeeded', { durationMs: 42 });
    const overtaken = newRun(newId('job'));
    // Submitted in one turn, so they share one transaction: a run's three stages, a copy, a stale event after a
    // final one, and another run whose final event came first.
    const outcomes = await Promise.all(
      [
        queued,
        running,
        { ...running },
        succeeded,
        runEvent(t, run, 'running', { attempt: 2 }),
        runEvent(t, overtaken, 'failed'),
        runEvent(t, overtaken, 'queued'),
      ].map((e) => events.apply(e)),
    );
    expect(outcomes).toEqual(['applied', 'applied', 'duplicate', 'applied', 'stale', 'applied', 'stale']);
    expect(await factOf(run.id)).toMatchObject({ status: 'succeeded', attempt: 1, duration_ms: 42 });
    expect(await factOf(overtaken.id)).toMatchObject({ status: 'failed' });
    const after = await counted();
    expect(after).toEqual({ queued: before.queued + 1, running: before.running + 1, succeeded: before.succeeded + 1 });
    // The failure opened its job's alert within the batch.
    expect((await alertsOf(t)).data.map((a) => a.job_id)).toEqual([overtaken.job_id]);
  });

  it('give a batch of several events per run, without a failure, the outcomes one by one would give', async () => {
    // A run's queued, started and end often come in one batch (the scheduler publishes a short run's events in one
    // turn): one statement per round of them, each committed on its own.
    const t = newTenant();
    const events = suite.monitoring.app.get(MonitoringEvents);
    const statuses = ['queued', 'running', 'succeeded'] as const;
    const counted = async () => Promise.all(statuses.map((s) => runsCounted(s)));
    const before = await counted();
    const [a, b] = [newRun(newId('job')), newRun(newId('job'))];
    const aRunning = runEvent(t, a, 'running');
    const outcomes = await Promise.all(
      [
        runEvent(t, a, 'queued'),
        aRunning,
        runEvent(t, b, 'queued'),
        { ...aRunning },
        runEvent(t, a, 'succeeded', { durationMs: 7 }),
        runEvent(t, b, 'running'),
        runEvent(t, a, 'running', { attempt: 2 }),
      ].map((e) => events.apply(e)),
    );
    expect(outcomes).toEqual(['applied', 'applied', 'applied', 'duplicate', 'applied', 'applied', 'stale']);
    expect(await factOf(a.id)).toMatchObject({ status: 'succeeded', attempt: 1, duration_ms: 7 });
    expect(await factOf(b.id)).toMatchObject({ status: 'running' });
    expect(await counted()).toEqual([before[0]! + 2, before[1]! + 2, before[2]! + 1]);
  });

  it("resolve a job's open alert when its run's success comes in a later round of the batch", async () => {
    const t = newTenant();
    const events = suite.monitoring.app.get(MonitoringEvents);
    const jobId = newId('job');
    await events.apply(runEvent(t, newRun(jobId), 'failed'));
    expect((await alertsOf(t)).data).toMatchObject([{ job_id: jobId, status: 'open' }]);
    const run = newRun(jobId);
    const outcomes = await Promise.all(
      [runEvent(t, run, 'queued'), runEvent(t, run, 'running'), runEvent(t, run, 'succeeded')].map((e) =>
        events.apply(e),
      ),
    );
    expect(outcomes).toEqual(['applied', 'applied', 'applied']);
    expect(await factOf(run.id)).toMatchObject({ status: 'succeeded' });
    expect((await alertsOf(t)).data).toMatchObject([{ job_id: jobId, status: 'resolved', occurrences: 1 }]);
  });

  it('resolve an alert opened by a failure earlier in the same batch', async () => {
    const t = newTenant();
    const events = suite.monitoring.app.get(MonitoringEvents);
    const jobId = newId('job');
    await Promise.all(
      [runEvent(t, newRun(jobId), 'failed'), runEvent(t, newRun(jobId), 'succeeded')].map((e) => events.apply(e)),
    );
    expect((await alertsOf(t)).data).toMatchObject([{ job_id: jobId, status: 'resolved', occurrences: 1 }]);
  });
});

describe('events of one run applied by two replicas at once', () => {
  it('keep the later state: the statement waits for the other insert and then finds the run further along', async () => {
    const t = newTenant();
    const run = newRun(newId('job'));
    const other = suite.ds.createQueryRunner();
    await other.connect();
    await other.startTransaction();
    try {
      await recordAndApply(transactionStatements(other.manager), [runEvent(t, run, 'running')], {
        unlessAlerting: false,
      });
      const [{ pid }] = (await other.query(`SELECT pg_backend_pid() AS pid`)) as [{ pid: number }];
      const queued = runEvent(t, run, 'queued');
      const racing = recordAndApply(pooledStatements(suite.ds), [queued], { unlessAlerting: true });
      await waitFor(
        async () =>
          (
            await suite.ds.query<unknown[]>(
              `SELECT 1 FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))`,
              [pid],
            )
          ).length > 0,
        { what: 'the statement waiting on the other insert' },
      );
      await other.commitTransaction();
      const done = await racing;
      expect([...done.fresh]).toEqual([queued.event_id]);
      expect([...done.applied]).toEqual([]);
    } finally {
      await other.release();
    }
    expect(await factOf(run.id)).toMatchObject({ status: 'running' });
  });
});

describe('alerts', () => {
  it('open on a failure, count occurrences, turn critical at three in a row, and resolve on the next success', async () => {
    const t = newTenant();
    const jobId = newId('job');
    const first = newRun(jobId);
    await publish(runEvent(t, first, 'failed', { error: 'bad SQL' }));
    let [alert] = (await alertsOf(t)).data;
    expect(alert).toMatchObject({
      job_id: jobId,
      run_id: first.id,
      rule: 'run_failed',
      severity: 'warning',
      status: 'open',
      occurrences: 1,
      resolved_at: null,
    });
    expect(alert!.message).toContain('bad SQL');

    const second = newRun(jobId);
    await publish(runEvent(t, second, 'failed'));
    [alert] = (await alertsOf(t)).data;
    expect(alert).toMatchObject({ run_id: second.id, rule: 'run_failed', severity: 'warning', occurrences: 2 });

    await publish(runEvent(t, newRun(jobId), 'failed'));
    const open = await alertsOf(t, { status: 'open' });
    expect(open.data).toHaveLength(1);
    expect(open.data[0]).toMatchObject({
      id: alert!.id,
      rule: 'consecutive_failures',
      severity: 'critical',
      occurrences: 3,
    });

    await publish(runEvent(t, newRun(jobId), 'succeeded'));
    const resolved = (await alertsOf(t)).data[0]!;
    expect(resolved).toMatchObject({ id: alert!.id, status: 'resolved', severity: 'critical' });
    expect(resolved.resolved_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    // The events went out through the outbox, to events.webhooks, with the event id as the job id.
    const events = await waitFor(
      async () => {
        const found = await alertEventsFor(alert!.id);
        return found.length === 2 ? found : undefined;
      },
      { what: 'alert events published' },
    );
    expect(events.map((e) => e.type)).toEqual(['alert.opened', 'alert.resolved']);
    expect(events[0]).toMatchObject({ tenant_id: t, alert: { status: 'open', occurrences: 1 } });
    expect(events[1]).toMatchObject({
      tenant_id: t,
      alert: { status: 'resolved', severity: 'critical', occurrences: 3 },
    });

    // A new failure after the resolution opens a new alert.
    await publish(runEvent(t, newRun(jobId), 'failed'));
    const again = await alertsOf(t, { status: 'open' });
    expect(again.data).toHaveLength(1);
    expect(again.data[0]!.id).not.toBe(alert!.id);
    expect(again.data[0]).toMatchObject({ occurrences: 1, severity: 'warning' });
  });

  it('ignore a redelivered failure', async () => {
    const t = newTenant();
    const failed = runEvent(t, newRun(newId('job')), 'failed');
    await publish(failed);
    await eventsQueue.add(failed.type, failed, { jobId: `${failed.event_id}-redelivered` });
    await waitFor(async () => (await eventsQueue.getJob(`${failed.event_id}-redelivered`))?.isCompleted(), {
      what: 'redelivery processed',
    });
    expect((await alertsOf(t)).data.map((a) => a.occurrences)).toEqual([1]);
  });

  it('open a webhook_disabled alert from the dispatcher event', async () => {
    const t = newTenant();
    const webhookId = newId('webhook');
    const disabled = (reason: string) => ({
      event_id: newId('event'),
      type: 'webhook.disabled',
      created_at: new Date().toISOString(),
      tenant_id: t,
      webhook: { id: webhookId, url: 'https://example.com/hook' },
      reason,
    });
    await publish(disabled('410 Gone'), disabled('failing for 5 days'));
    const [alert] = (await alertsOf(t)).data;
    expect(alert).toMatchObject({
      rule: 'webhook_disabled',
      webhook_id: webhookId,
      job_id: null,
      status: 'open',
      occurrences: 2,
    });
    await waitFor(async () => (await alertEventsFor(alert!.id)).length === 1, { what: 'alert.opened published' });

    // The webhook set back to active: the alert is resolved and announced; a second copy changes nothing.
    const enabled = {
      event_id: newId('event'),
      type: 'webhook.enabled',
      created_at: new Date().toISOString(),
      tenant_id: t,
      webhook: { id: webhookId, url: 'https://example.com/hook' },
    };
    await publish(enabled);
    const [resolved] = (await alertsOf(t)).data;
    expect(resolved).toMatchObject({ id: alert!.id, status: 'resolved', resolved_at: enabled.created_at });
    await waitFor(async () => (await alertEventsFor(alert!.id)).length === 2, { what: 'alert.resolved published' });
    await eventsQueue.add(enabled.type, enabled, { jobId: `${enabled.event_id}-again` });
    await waitFor(async () => (await eventsQueue.getJob(`${enabled.event_id}-again`))?.isCompleted(), {
      what: 'the copy processed',
    });
    expect((await alertsOf(t)).data).toEqual([resolved]);
    expect(await alertEventsFor(alert!.id)).toHaveLength(2);
  });

  it('list in cursor pages, newest first, filtered by job, status and severity, only the tenant’s own', async () => {
    const t = newTenant();
    const jobs = [newId('job'), newId('job'), newId('job')];
    const events: RunEvent[] = jobs.map((j) => runEvent(t, newRun(j), 'failed'));
    await publish(...events);
    await publish(runEvent(t, newRun(jobs[0]!), 'failed'), runEvent(t, newRun(jobs[0]!), 'failed'));
    await publish(runEvent(t, newRun(jobs[1]!), 'succeeded'));

    const first = await alertsOf(t, { limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await alertsOf(t, { limit: 2, cursor: first.next_cursor });
    expect(second.data).toHaveLength(1);
    expect(second.next_cursor).toBeNull();
    const all = [...first.data, ...second.data];
    expect(all.map((a) => a.id)).toEqual([...all.map((a) => a.id)].sort().reverse());
    expect(new Set(all.map((a) => a.job_id))).toEqual(new Set(jobs));

    expect((await alertsOf(t, { job_id: jobs[0] })).data.map((a) => a.severity)).toEqual(['critical']);
    expect((await alertsOf(t, { severity: 'critical' })).data.map((a) => a.job_id)).toEqual([jobs[0]]);
    expect((await alertsOf(t, { status: 'resolved' })).data.map((a) => a.job_id)).toEqual([jobs[1]]);
    expect((await alertsOf(t, { status: 'open', severity: 'warning' })).data.map((a) => a.job_id)).toEqual([jobs[2]]);
    expect((await alertsOf(newTenant())).data).toEqual([]);

    const bad = await caller.call(t, 'monitoring.alerts.list', { query: { limit: 10, cursor: 'not-a-cursor' } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_parameter' } });
  });
});
