import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  Inject,
  NotFoundException,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { type ErrorCode, AppError } from '@conduit/contracts';
import { asDependencyUnavailable } from '@conduit/service-kit';
import { sendProblem } from './problem.js';
import { GATEWAY_LOGGER, ROUTE_TABLE } from '../tokens.js';
import type { RouteTable } from './routes.js';

/** Status codes Fastify or Nest raise themselves, mapped to our codes. */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'malformed_json',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'service_unavailable',
};

/**
 * Turns every error into an RFC 9457 problem document; a 500 says nothing of its cause but the request id, and an
 * unreachable dependency is a 503 naming its class (service-kit's one classification of outages).
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  constructor(
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
    @Inject(ROUTE_TABLE) private readonly routes: RouteTable,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    sendProblem(request, reply, this.toAppError(exception, request));
  }

  private toAppError(exception: unknown, request: FastifyRequest): AppError {
    if (exception instanceof AppError) return exception;
    // Nest's own not-found handler: no route matched this method and path.
    if (exception instanceof NotFoundException) return this.routes.unmatched(request.method, request.url);
    const status =
      exception instanceof HttpException ? exception.getStatus() : (exception as { statusCode?: unknown })?.statusCode;
    if (typeof status === 'number' && status < 500 && CODE_BY_STATUS[status]) {
      return new AppError(CODE_BY_STATUS[status], this.detailFor(status, exception));
    }
    // The database or Redis unreachable (the key lookup, the idempotency record...): a 503 naming it, not a 500.
    const unavailable = asDependencyUnavailable(exception);
    if (unavailable) {
      this.logger.warn(
        {
          request_id: request.id,
          url: request.url,
          dependency: unavailable.dependency,
          reason: (exception as Error).message,
        },
        'dependency unavailable',
      );
      return unavailable;
    }
    this.logger.error({ err: exception, request_id: request.id, url: request.url }, 'unhandled error');
    return new AppError('internal', `internal error; quote request id ${String(request.id)}`);
  }

  private detailFor(status: number, exception: unknown): string {
    switch (status) {
      case 404:
        return 'no such resource';
      case 413:
        return 'the body is larger than 1 MiB';
      case 415:
        return 'requests with a body must send Content-Type: application/json';
      case 400:
        return (exception as { code?: string }).code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
          ? 'the body is empty'
          : 'the request is malformed';
      default:
        return 'the request was refused';
    }
  }
}
