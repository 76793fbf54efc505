import type { LoggerService } from '@nestjs/common';
import type { Logger, Level } from 'pino';

/**
 * Routes Nest's own logging (`app.useLogger(new NestPinoLogger(logger))`) into pino.
 * Nest passes the context (class name) as the last optional parameter.
 */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...optionalParams: unknown[]): void {
    this.write('info', message, optionalParams);
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    this.write('error', message, optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.write('warn', message, optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.write('debug', message, optionalParams);
  }

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.write('trace', message, optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    this.write('fatal', message, optionalParams);
  }

  private write(level: Level, message: unknown, optionalParams: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = {};
    const params = [...optionalParams];
    if (params.length > 0 && typeof params[params.length - 1] === 'string') fields['context'] = params.pop();
    // Nest's exception handlers call error(message, stack, context) with the stack as a string.
    if (level === 'error' && typeof params[0] === 'string' && /\n\s*at /.test(params[0])) {
      fields['stack'] = params.shift();
    }
    if (params.length > 0) fields['params'] = params;

    if (message instanceof Error) {
      this.logger[level]({ ...fields, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.logger[level]({ ...fields, ...(message as Record<string, unknown>) });
    } else {
      this.logger[level](fields, String(message));
    }
  }
}
