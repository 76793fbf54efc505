// Runs live under their job in the API (/v2/jobs/{job_id}/runs/{run_id}). Every helper takes the job's id when the
// caller knows it; without it, the run's job is found once by walking the tenant's jobs (docs/sdk-cli.md).
import type { Client } from 'openapi-fetch';
import type { paths } from '../generated/api.js';
import { ConduitApiError, ConduitTimeoutError } from '../errors.js';
import { Paginated } from '../pagination.js';
import type { QueryOf, Run, RunDag, RunLogLine } from '../types.js';
import { isFinalRunStatus } from '../types.js';
import { defined, unwrap } from '../unwrap.js';
import type { JobsApi } from './jobs.js';
import type { PageOptions } from './list-params.js';
import { streamRunLogs, type LogStreamOptions } from './log-stream.js';

export interface RunRef {
  /** The run's job; found by a search when absent. */
  jobId?: string | undefined;
}

export interface RunListOptions extends PageOptions {
  jobId: string;
  status?: QueryOf<'listRuns'>['status'];
}

export interface RunLogOptions extends RunRef, PageOptions {
  level?: QueryOf<'getRunLogs'>['level'];
  nodeId?: string;
}

export interface WaitForRunOptions extends RunRef {
  /** Give up (ConduitTimeoutError) after this long. Default 15 minutes. */
  timeoutMs?: number;
  /** Between two reads of the run. Default 1000 ms. */
  intervalMs?: number;
  /** Called with every state read, e.g. to draw progress. */
  onUpdate?: (run: Run) => void;
  signal?: AbortSignal;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

export class RunsApi {
  /** run id -> job id, learnt from every run this client has seen. */
  private readonly jobOf = new Map<string, string>();

  constructor(
    private readonly raw: Client<paths>,
    private readonly jobs: JobsApi,
  ) {}

  private remember(run: Run): Run {
    this.jobOf.set(run.id, run.job_id);
    return run;
  }

  /** The run's job id: given, remembered, or found by listing each job's runs. */
  async jobIdOf(runId: string, ref: RunRef = {}): Promise<string> {
    const known = ref.jobId ?? this.jobOf.get(runId);
    if (known !== undefined) return known;
    for await (const job of this.jobs.list({ pageSize: 200 })) {
      const run = await this.list({ jobId: job.id, pageSize: 200 }).find((r) => r.id === runId);
      if (run) return this.remember(run).job_id;
    }
    throw new ConduitApiError({
      type: '/problems/not-found',
      title: 'Not found',
      status: 404,
      code: 'not_found',
      detail: `no run ${runId} among the jobs this credential can see`,
      instance: `/v2/runs/${runId}`,
      request_id: '',
    });
  }

  list(options: RunListOptions): Paginated<Run> {
    return new Paginated(async (cursor) => {
      const page = await unwrap(
        this.raw.GET('/v2/jobs/{job_id}/runs', {
          params: {
            path: { job_id: options.jobId },
            query: defined({ cursor, limit: options.pageSize, status: options.status }),
          },
        }),
      );
      page.data.forEach((run) => this.remember(run));
      return page;
    });
  }

  async get(runId: string, ref: RunRef = {}): Promise<Run> {
    const jobId = await this.jobIdOf(runId, ref);
    return this.remember(
      await unwrap(
        this.raw.GET('/v2/jobs/{job_id}/runs/{run_id}', { params: { path: { job_id: jobId, run_id: runId } } }),
      ),
    );
  }

  /** The DAG the run ran (with the pipeline's version then), which the pipeline may have changed since. */
  async dag(runId: string, ref: RunRef = {}): Promise<RunDag> {
    const jobId = await this.jobIdOf(runId, ref);
    return unwrap(
      this.raw.GET('/v2/jobs/{job_id}/runs/{run_id}/dag', { params: { path: { job_id: jobId, run_id: runId } } }),
    );
  }

  /** Cancel: answers the run, already `canceled` (409 run_finished when it was over). */
  async cancel(runId: string, ref: RunRef = {}): Promise<Run> {
    const jobId = await this.jobIdOf(runId, ref);
    return this.remember(
      await unwrap(
        this.raw.POST('/v2/jobs/{job_id}/runs/{run_id}/cancel', { params: { path: { job_id: jobId, run_id: runId } } }),
      ),
    );
  }

  /** Retry: a new run of the job with this ended run's parameters (`trigger: retry`; 409 run_in_progress before it ends). */
  async retry(runId: string, ref: RunRef = {}): Promise<Run> {
    const jobId = await this.jobIdOf(runId, ref);
    return this.remember(
      await unwrap(
        this.raw.POST('/v2/jobs/{job_id}/runs/{run_id}/retry', { params: { path: { job_id: jobId, run_id: runId } } }),
      ),
    );
  }

  /** Polls the run until it is succeeded, failed or canceled, and answers that state. */
  async waitForRun(runId: string, options: WaitForRunOptions = {}): Promise<Run> {
    const deadline = Date.now() + (options.timeoutMs ?? 15 * 60_000);
    const interval = options.intervalMs ?? 1000;
    let last: Run | undefined;
    for (;;) {
      last = await this.get(runId, options);
      options.onUpdate?.(last);
      if (isFinalRunStatus(last.status)) return last;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new ConduitTimeoutError(
          `run ${runId} is still ${last.status} after ${options.timeoutMs ?? 900_000} ms`,
          last,
        );
      await sleep(Math.min(interval, left), options.signal);
    }
  }

  /** The run's log lines so far, oldest first, page by page. */
  logs(runId: string, options: RunLogOptions = {}): Paginated<RunLogLine> {
    return new Paginated(async (cursor) => {
      const jobId = await this.jobIdOf(runId, options);
      const page = await unwrap(
        this.raw.GET('/v2/jobs/{job_id}/runs/{run_id}/logs', {
          params: {
            path: { job_id: jobId, run_id: runId },
            query: defined({ cursor, limit: options.pageSize, level: options.level, node_id: options.nodeId }),
          },
          headers: { accept: 'application/json' },
        }),
      );
      // The operation also declares the text/event-stream answer; asked for JSON, a string would be a broken server.
      if (typeof page === 'string') throw new TypeError('the log page came back as text, not JSON');
      return page;
    });
  }

  /**
   * The run's log lines live (server-sent events) until the run has ended; a dropped stream is resumed with
   * Last-Event-ID, so no line is lost or repeated.
   */
  async *streamLogs(
    runId: string,
    options: LogStreamOptions & RunRef = {},
  ): AsyncGenerator<RunLogLine, void, undefined> {
    const jobId = await this.jobIdOf(runId, options);
    yield* streamRunLogs(this.raw, jobId, runId, options);
  }
}
