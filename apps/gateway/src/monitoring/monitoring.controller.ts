import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type RunLogTail,
  AppError,
  alertListQuerySchema,
  cursorLists,
  decodeCursor,
  isId,
  metricsQuerySchema,
  parseQueryOrThrow,
  runLogQuerySchema,
} from '@conduit/contracts';
import { TenantSlots } from '@conduit/service-kit';
import { BackendClient } from '../forwarding/backend.client.js';
import { Operation } from '../openapi/operation.decorator.js';
import { AuthService } from '../auth/auth.service.js';
import { GATEWAY_CONFIG } from '../tokens.js';
import type { GatewayConfig } from '../config.js';
import { HeaderedError } from '../http/problem.js';
import { principalOf } from '../access/principal-of.js';
import { type StreamCredentialCheck, streamRunLogs } from './run-log-stream.js';

/** When a tenant at its bound of live streams may try again: a stream ends as its run does. */
const STREAMS_RETRY_AFTER_S = 5;

function checkIds(jobId: string, runId: string): void {
  if (!isId('job', jobId)) throw new AppError('not_found', 'no job with that id');
  if (!isId('run', runId)) throw new AppError('not_found', 'no run with that id');
}

/** Where a live stream starts: after Last-Event-ID (a reconnect), else after the cursor, else from the beginning. */
function streamStart(runId: string, lastEventId: string | string[] | undefined, cursor: string | undefined): number {
  if (typeof lastEventId === 'string' && lastEventId.trim() !== '') {
    // Plain decimal digits, as the stream's ids are sent: Number() would read `0x10` as 16 and `1e1` as 10.
    const text = lastEventId.trim();
    const seq = /^(0|[1-9][0-9]{0,15})$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isSafeInteger(seq) || seq < 0)
      throw new AppError('invalid_parameter', 'header Last-Event-ID: must be a log line seq');
    return seq;
  }
  if (cursor === undefined) return 0;
  const seq = Number(decodeCursor(cursor, cursorLists.runLogs(runId))?.after);
  if (!Number.isSafeInteger(seq) || seq < 0)
    throw new AppError('invalid_parameter', 'query parameter cursor: is not a valid cursor');
  return seq;
}

function wantsEventStream(request: FastifyRequest): boolean {
  return /\btext\/event-stream\b/i.test(request.headers.accept ?? '');
}

/** Metrics, alerts and run logs, forwarded to the monitoring service. */
@Controller('v2')
export class MonitoringController {
  /** Live log streams open, per tenant: each polls monitoring while its run lasts (docs/security.md). */
  private readonly streams: TenantSlots;

  constructor(
    private readonly backend: BackendClient,
    private readonly auth: AuthService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    this.streams = new TenantSlots(config.LOG_STREAMS_PER_TENANT);
  }

  @Get('metrics')
  @Operation('getMetrics')
  async metrics(@Req() req: FastifyRequest) {
    const query = parseQueryOrThrow(metricsQuerySchema, req.query ?? {});
    // Monitoring counts runs it has heard of and knows no jobs: the scheduler, their owner, says whether the job is
    // the caller's (another tenant's reads as missing), at the same time as the metrics are computed.
    const [, answer] = await Promise.all([
      query.job_id === undefined ? undefined : this.jobOfCaller(query.job_id, req),
      this.backend.call('monitoring.metrics.get', { query }, req),
    ]);
    return answer.data;
  }

  private async jobOfCaller(jobId: string, req: FastifyRequest): Promise<void> {
    try {
      await this.backend.call('scheduler.jobs.get', { id: jobId }, req);
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') throw new AppError('not_found', 'no job with that id');
      throw err;
    }
  }

  @Get('alerts')
  @Operation('listAlerts')
  async alerts(@Req() req: FastifyRequest) {
    const query = parseQueryOrThrow(alertListQuerySchema, req.query ?? {});
    return (await this.backend.call('monitoring.alerts.list', { query }, req)).data;
  }

  @Get('jobs/:job_id/runs/:run_id/logs')
  @Operation('getRunLogs')
  async logs(
    @Param('job_id') jobId: string,
    @Param('run_id') runId: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    checkIds(jobId, runId);
    const query = parseQueryOrThrow(runLogQuerySchema, req.query ?? {});
    if (!wantsEventStream(req)) {
      const page = await this.orNoLinesYet(
        jobId,
        runId,
        req,
        { data: [], next_cursor: null },
        async () =>
          (await this.backend.call('monitoring.logs.list', { job_id: jobId, run_id: runId, query }, req)).data,
      );
      await reply.status(200).send(page);
      return;
    }
    const afterSeq = streamStart(runId, req.headers['last-event-id'], query.cursor);
    const target = { jobId, runId, afterSeq, level: query.level, nodeId: query.node_id };
    const release = this.streams.take(principalOf(req).tenant_id);
    if (!release) {
      const detail = `more than ${this.config.LOG_STREAMS_PER_TENANT} live log streams open at once for this tenant`;
      throw new HeaderedError({ code: 'rate_limited', detail }, { 'retry-after': String(STREAMS_RETRY_AFTER_S) });
    }
    try {
      // The first poll happens before the stream opens, so an unknown run is still a 404 problem document.
      const first = await this.orNoLinesYet<RunLogTail>(
        jobId,
        runId,
        req,
        { data: [], scanned_seq: afterSeq, run_finished: false },
        async () =>
          (
            await this.backend.call(
              'monitoring.logs.tail',
              { job_id: jobId, run_id: runId, after_seq: afterSeq, level: query.level, node_id: query.node_id },
              req,
            )
          ).data,
      );
      await streamRunLogs(this.backend, req, reply, first, target, this.credentialCheck(req));
    } finally {
      release();
    }
  }

  /** The stream's credential, authenticated again as a new request would be (revocations evict cached keys). */
  private credentialCheck(req: FastifyRequest): StreamCredentialCheck {
    const apiKey = req.headers['x-api-key'];
    const authorization = req.headers.authorization;
    const headers = {
      ...(typeof apiKey === 'string' ? { apiKey } : {}),
      ...(typeof authorization === 'string' ? { authorization } : {}),
    };
    return {
      everyMs: this.config.STREAM_AUTH_RECHECK_MS,
      check: async () => void (await this.auth.authenticate(headers)),
    };
  }

  /**
   * Monitoring learns of a run from its events, a few milliseconds after Trigger Run answers. A run it does not know
   * yet but the scheduler (the owner of runs) does has simply no lines yet; only a run unknown to both is a 404.
   */
  private async orNoLinesYet<T>(
    jobId: string,
    runId: string,
    req: FastifyRequest,
    empty: T,
    read: () => Promise<T>,
  ): Promise<T> {
    try {
      return await read();
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'not_found') throw err;
      await this.backend.call('scheduler.runs.get', { job_id: jobId, run_id: runId }, req);
      return empty;
    }
  }
}
