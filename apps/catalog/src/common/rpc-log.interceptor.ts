import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import type { Logger } from 'pino';
import { CATALOG_LOGGER } from './tokens.js';

/**
 * One debug line per RPC this replica takes, with its pid: with several replicas the logs show which one served
 * what (the e2e replica test counts them). Registered only when the level is `debug` or lower.
 */
@Injectable()
export class RpcLogInterceptor implements NestInterceptor {
  constructor(@Inject(CATALOG_LOGGER) private readonly logger: Logger) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'rpc' && this.logger.isLevelEnabled('debug')) {
      this.logger.debug(
        { pid: process.pid, handler: `${context.getClass().name}.${context.getHandler().name}` },
        'rpc received',
      );
    }
    return next.handle();
  }
}
