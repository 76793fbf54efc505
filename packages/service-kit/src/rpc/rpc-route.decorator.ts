import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { type RpcContext, type RpcData, type RpcPattern, type RpcResult, handleRpc } from '@conduit/contracts';
import { RedisStreamsContext } from '@conduit/rpc-streams';
import { reportUnexpected } from './unexpected-error.js';
import { answerOutage } from './outage-answer.js';

/** A controller whose RPC handlers report unexpected errors to its logger. */
export interface RpcController {
  readonly logger: Logger;
}

/** A handler's answer is typed against the pattern's response schema at compile time; nothing is checked at run time. */
type RpcHandler<P extends RpcPattern> = (data: RpcData<P>, ctx: RpcContext) => Promise<RpcResult<P>>;

/**
 * Marks a controller method as the handler of an RPC pattern. The method receives the request data, already
 * validated with the pattern's schema, and the caller's context; what it returns or throws becomes the reply
 * envelope (domain errors as data, an unreachable database or Redis as a 503 naming it, anything else logged and
 * answered `internal`). `ctx.deadline` is the caller's deadline when the request came over Redis Streams: a creating
 * handler passes it to `assertBeforeDeadline` before it commits.
 */
export function RpcRoute<P extends RpcPattern>(pattern: P) {
  return <T extends RpcController, F extends RpcHandler<P>>(
    target: T,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<F>,
  ): void => {
    const handler = descriptor.value;
    if (!handler) throw new Error(`@RpcRoute('${pattern}') must decorate a method`);
    const wrapped = function (this: T, message: unknown, transport?: unknown) {
      // The caller's deadline is the transport's (the moment it answers 503), not one a sender wrote in the envelope.
      const deadline = transport instanceof RedisStreamsContext ? transport.getDeadline() : undefined;
      const run = (data: RpcData<P>, ctx: RpcContext) =>
        answerOutage(
          handler.call(this, data, deadline === undefined ? ctx : { ...ctx, deadline }),
          this.logger,
          pattern,
        );
      return handleRpc(pattern, message, run, reportUnexpected(this.logger, pattern));
    };
    // Nest reads the handler's name in logs and interceptors: keep the method's.
    Object.defineProperty(wrapped, 'name', { value: handler.name });
    // Nest calls the handler with the message; the typed signature is the method's as written.
    descriptor.value = wrapped as unknown as F;
    MessagePattern(pattern)(target, key, descriptor);
    // Without parameter decorators Nest passes the payload alone; the transport's context carries the deadline.
    Payload()(target, key, 0);
    Ctx()(target, key, 1);
  };
}
