// `conduit run`, `conduit runs`, `conduit logs`, `conduit cancel`, `conduit retry`.
import type { Command } from 'commander';
import { ConduitTimeoutError, isFinalRunStatus, type ConduitClient, type Run } from '@conduit/sdk';
import { clientOf, outputOf, resolveConnection, type GlobalOptions } from '../context.js';
import { formatDuration, formatLogLine, RunView } from '../live/run-view.js';
import { terminalSafe, UsageError, type Output } from '../output.js';
import { findJob } from './refs.js';

interface RunOptions extends GlobalOptions {
  follow?: boolean;
  param?: string[];
  timeout?: string;
  job?: string;
  status?: string;
  limit?: string;
}

/**
 * `key=value` to a typed value: what reads as JSON (1, true, null, [1,2], {"a":1}) is sent as such, anything else as
 * a string. A number only when exact: `12345678901234567890` or `1.0` would reach the run changed (as
 * 12345678901234567000, 1), so they stay strings.
 */
function parameterValue(raw: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return raw;
  }
  if (typeof value !== 'number') return value;
  const exact = (!Number.isInteger(value) || Number.isSafeInteger(value)) && JSON.stringify(value) === raw.trim();
  return exact ? value : raw;
}

function parameters(pairs: string[] = []): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--param takes key=value (got "${pair}")`);
    result[pair.slice(0, eq)] = parameterValue(pair.slice(eq + 1));
  }
  return result;
}

function seconds(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value <= 0)
    throw new UsageError(`--timeout takes seconds (got "${text}")`);
  return value * 1000;
}

/** Giving up watching does not stop the run: says so on stderr (also with -o json), and how to stop it. */
function keepsRunning(out: Output, run: Run): void {
  out.stderr.write(
    `${terminalSafe(`run ${run.id} keeps running; to stop it: conduit cancel ${run.id} --job ${run.job_id}`)}\n`,
  );
}

/** Streams the logs and draws the run until it has ended; answers the final run. */
async function follow(client: ConduitClient, out: Output, run: Run, timeoutMs: number): Promise<Run> {
  const view = new RunView(out);
  view.update(run);
  const stop = new AbortController();
  // Ctrl-C ends the CLI as usual (exit 130), after the note.
  const interrupted = () => {
    view.stop();
    keepsRunning(out, run);
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  const logs = (async () => {
    for await (const line of client.runs.streamLogs(run.id, { jobId: run.job_id, signal: stop.signal })) view.log(line);
  })().catch((err: unknown) => {
    if (!stop.signal.aborted)
      out.note(out.paint('yellow', `log stream stopped: ${err instanceof Error ? err.message : String(err)}`));
  });
  let final: Run;
  try {
    final = await client.waitForRun(run.id, {
      jobId: run.job_id,
      intervalMs: 500,
      timeoutMs,
      onUpdate: (r) => view.update(r),
    });
    // The stream ends by itself once the run has ended and its last line is out; bounded, in case it hangs.
    await Promise.race([logs, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
  } catch (err) {
    view.stop();
    if (err instanceof ConduitTimeoutError) keepsRunning(out, run);
    throw err;
  } finally {
    stop.abort();
    process.off('SIGINT', interrupted);
  }
  view.finish(final);
  return final;
}

function runRow(out: Output, run: Run, jobName: string): string[] {
  const colour =
    run.status === 'succeeded'
      ? 'green'
      : run.status === 'failed'
        ? 'red'
        : run.status === 'canceled'
          ? 'yellow'
          : 'blue';
  return [
    run.id,
    jobName,
    out.paint(colour, run.status),
    run.trigger,
    run.queued_at,
    run.duration_ms !== null ? formatDuration(run.duration_ms) : '',
    String(run.stats.rows_written),
  ];
}

export function registerRuns(program: Command): void {
  program
    .command('run <job>')
    .description('trigger a run of a job (id or name); with --follow, show it live and exit 0 only if it succeeded')
    .option('--follow', "stream the logs and the DAG's node states until the run ends")
    .option(
      '-p, --param <key=value>',
      'a run parameter; repeat for more. A value that reads as JSON (1, true, null, [1,2], {"a":1}) is sent typed ' +
        '(a number only if exact: 12345678901234567890 and 1.0 stay strings), anything else as a string; ' +
        `quote to force a string: -p 'day="1"'`,
      (pair: string, previous: string[] = []) => [...previous, pair],
    )
    .option('--timeout <seconds>', 'with --follow: give up waiting after this long (exit 1)', '3600')
    .action(async (jobRef: string, _opts: RunOptions, cmd: Command) => {
      const opts = cmd.optsWithGlobals<RunOptions>();
      const out = outputOf(opts);
      // Every flag checked before the first request: a bad one must not leave a run started.
      const params = parameters(opts.param);
      const timeoutMs = seconds(opts.timeout, 3_600_000);
      const client = clientOf(resolveConnection(opts), out);
      const job = await findJob(client, jobRef);
      const run = await client.jobs.trigger(job.id, { parameters: params });
      if (!opts.follow) {
        if (out.json) return out.document(run);
        out.line(`Run ${run.id} of ${job.name} is ${run.status}. Follow it: conduit logs ${run.id} --follow`);
        return;
      }
      out.note(`Run ${run.id} of ${job.name} queued.`);
      const final = await follow(client, out, run, timeoutMs);
      if (out.json) out.document(final);
      process.exitCode = final.status === 'succeeded' ? 0 : 1;
    });

  program
    .command('runs')
    .description('recent runs, newest first: of one job, or of every job')
    .option('--job <job>', 'a job id or name')
    .option('--status <status>', 'queued, running, succeeded, failed or canceled')
    .option('--limit <n>', 'how many', '20')
    .action(async (_opts: RunOptions, cmd: Command) => {
      const opts = cmd.optsWithGlobals<RunOptions>();
      const out = outputOf(opts);
      const limit = Number(opts.limit ?? 20);
      if (!Number.isInteger(limit) || limit < 1)
        throw new UsageError(`--limit takes a positive integer (got "${opts.limit}")`);
      const client = clientOf(resolveConnection(opts), out);
      const status = opts.status as Run['status'] | undefined;
      const jobs = opts.job ? [await findJob(client, opts.job)] : await client.jobs.list({ pageSize: 200 }).toArray();
      const names = new Map(jobs.map((j) => [j.id, j.name]));
      const runs: Run[] = [];
      for (const job of jobs)
        runs.push(
          ...(await client.runs
            .list({ jobId: job.id, pageSize: Math.min(200, limit), ...(status ? { status } : {}) })
            .toArray(limit)),
        );
      runs.sort((a, b) => b.queued_at.localeCompare(a.queued_at));
      const shown = runs.slice(0, limit);
      if (out.json) return out.document({ data: shown });
      if (shown.length === 0) return out.line('No runs.');
      out.table(
        ['RUN', 'JOB', 'STATUS', 'TRIGGER', 'QUEUED', 'DURATION', 'ROWS WRITTEN'],
        shown.map((r) => runRow(out, r, names.get(r.job_id) ?? r.job_id)),
      );
    });

  program
    .command('logs <run>')
    .description("a run's log lines; with --follow, live until the run ends")
    .option('--job <job>', "the run's job id (found by a search when absent)")
    .option('--follow', 'stream new lines until the run ends')
    .action(async (runId: string, _opts: RunOptions, cmd: Command) => {
      const opts = cmd.optsWithGlobals<RunOptions>();
      const out = outputOf(opts);
      const client = clientOf(resolveConnection(opts), out);
      const jobId = opts.job ? (await findJob(client, opts.job)).id : undefined;
      const lines = opts.follow
        ? client.runs.streamLogs(runId, { jobId })
        : client.runs.logs(runId, { jobId, pageSize: 200 });
      // JSON: one line per log line (JSON Lines), so a follower can read them as they come.
      for await (const line of lines) {
        if (out.json) out.stdout.write(`${JSON.stringify(line)}\n`);
        else out.line(formatLogLine(out, line));
      }
      if (opts.follow && !out.json) {
        const run = await client.runs.get(runId, { jobId });
        if (isFinalRunStatus(run.status)) out.line(`run ${run.id} ${run.status}`);
      }
    });

  // Cancel Run and Retry Run: a run in, the run it became out, by the same options.
  const runActions = [
    {
      name: 'cancel',
      description: 'cancel a queued or running run',
      act: (client: ConduitClient, runId: string, jobId: string | undefined) => client.runs.cancel(runId, { jobId }),
      said: (run: Run) => `Run ${run.id} is ${run.status}.`,
    },
    {
      name: 'retry',
      description: "run an ended run's job again with that run's parameters (a new run, trigger retry)",
      act: (client: ConduitClient, runId: string, jobId: string | undefined) => client.runs.retry(runId, { jobId }),
      said: (run: Run, runId: string) => `Run ${run.id} is ${run.status} (a retry of ${runId}).`,
    },
  ];
  for (const { name, description, act, said } of runActions) {
    program
      .command(`${name} <run>`)
      .description(description)
      .option('--job <job>', "the run's job id (found by a search when absent)")
      .action(async (runId: string, _opts: RunOptions, cmd: Command) => {
        const opts = cmd.optsWithGlobals<RunOptions>();
        const out = outputOf(opts);
        const client = clientOf(resolveConnection(opts), out);
        const run = await act(client, runId, opts.job ? (await findJob(client, opts.job)).id : undefined);
        if (out.json) return out.document(run);
        out.line(said(run, runId));
      });
  }
}
