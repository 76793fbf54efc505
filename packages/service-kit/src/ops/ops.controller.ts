import { Controller, Get, Inject, Logger, Res } from '@nestjs/common';
import { OPS_OPTIONS, type OpsModuleOptions } from './ops-options.js';
import { runReadinessChecks, type ReadinessReport } from './readiness.js';

/** The part of a Fastify (or Express) reply this controller needs. */
interface HeaderWriter {
  header(name: string, value: string): unknown;
}

/** Fastify's reply sets its status with code(), Express's response with status(). */
interface StatusWriter {
  code?(status: number): unknown;
  status?(status: number): unknown;
}

/** `/healthz` and `/readyz`. */
@Controller()
export class OpsController {
  private readonly logger = new Logger('Ops');

  constructor(@Inject(OPS_OPTIONS) private readonly options: OpsModuleOptions) {}

  /** Liveness: the process answers; no dependencies are consulted, so a database outage does not restart pods. */
  @Get('healthz')
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * 200 or 503, with the same body either way: each check by name (`db`, `redis`...) and its state, so an operator
   * sees which dependency is down. Written here rather than thrown, so that no app's exception filter (the gateway's
   * turns errors into problem documents) can replace the report.
   */
  @Get('readyz')
  async readyz(@Res({ passthrough: true }) reply: StatusWriter): Promise<ReadinessReport> {
    const report = await runReadinessChecks(this.options.checks, this.options.checkTimeoutMs);
    if (report.status !== 'ok') {
      this.logger.warn(`not ready: ${JSON.stringify(report.checks)}`);
      if (reply.code) reply.code(503);
      else reply.status?.(503);
    }
    return report;
  }
}

/** `/metrics`, in the registry's own format and content type. */
@Controller()
export class MetricsController {
  constructor(@Inject(OPS_OPTIONS) private readonly options: OpsModuleOptions) {}

  @Get('metrics')
  async metrics(@Res({ passthrough: true }) reply: HeaderWriter): Promise<string> {
    const { registry } = this.options;
    // OpsModule mounts this controller only with a registry.
    if (!registry) throw new Error('MetricsController without a registry');
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  }
}
