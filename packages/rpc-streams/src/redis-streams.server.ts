import { Logger } from '@nestjs/common';
import { isObservable, type Observable } from 'rxjs';
import { type CustomTransportStrategy, type MessageHandler, Server, type WritePacket } from '@nestjs/microservices';
import { attachListener, type ConnectionListener, type RedisStreamsEvents, trackStatus } from './connection-events.js';
import {
  consumerName,
  type RedisStreamsOptions,
  requestStreamKey,
  resolveOptions,
  type ResolvedOptions,
} from './options.js';
import { RedisStreamsContext } from './redis-streams.context.js';
import { type StreamEntry, StreamConsumer } from './stream-consumer.js';
import { decodeRequest, publishReply, type ReplyBody, type RequestMessage, toTransportableError } from './wire.js';
import { contextFromCarrier, inSpan, recordAnswerError, SpanKind, type Span } from './trace-context.js';

const NO_MESSAGE_HANDLER = 'There is no matching message handler defined in the remote service.';

export type RedisStreamsServerOptions = RedisStreamsOptions & {
  /** The service whose requests this replica serves: the first segment of its patterns. */
  service: string;
};

/**
 * Serves `@MessagePattern` handlers from the Redis stream of one service, as one consumer of the
 * service's consumer group, so that each request runs on exactly one replica.
 */
export class RedisStreamsServer extends Server<RedisStreamsEvents> implements CustomTransportStrategy {
  protected override readonly logger = new Logger(RedisStreamsServer.name);
  private readonly options: ResolvedOptions;
  private readonly service: string;
  private readonly stream: string;
  private consumer: StreamConsumer | null = null;
  private listeners: ConnectionListener[] = [];
  private closing = false;

  constructor(opts: RedisStreamsServerOptions) {
    super();
    this.options = resolveOptions(opts);
    this.service = opts.service;
    this.stream = requestStreamKey(this.options.prefix, opts.service);
  }

  listen(callback: (err?: unknown) => void): void {
    this.start().then(
      () => callback(),
      (err: unknown) => callback(err),
    );
  }

  async close(): Promise<void> {
    this.closing = true;
    const consumer = this.consumer;
    this.consumer = null;
    // Handlers in flight get until they would be claimed by another replica anyway.
    await consumer?.stop(this.options.claimIdleMs);
  }

  on<EventKey extends keyof RedisStreamsEvents>(event: EventKey, callback: RedisStreamsEvents[EventKey]): void {
    const listener = { event, callback } as ConnectionListener;
    this.listeners.push(listener);
    if (this.consumer) attachListener(this.connections(this.consumer), listener);
  }

  /** The ioredis connections: `{ reader, commands }`. */
  unwrap<T>(): T {
    if (!this.consumer) {
      throw new Error('Not initialized. Call "listen" (app.startAllMicroservices) first.');
    }
    return this.connections(this.consumer) as T;
  }

  private async start(): Promise<void> {
    this.closing = false;
    this.warnAboutForeignPatterns();
    const consumer: StreamConsumer = new StreamConsumer({
      url: this.options.url,
      stream: this.stream,
      group: this.service,
      consumer: consumerName(),
      concurrency: this.options.concurrency,
      blockMs: this.options.blockMs,
      claimIdleMs: this.options.claimIdleMs,
      logger: this.logger,
      process: (entry) => this.processEntry(consumer, entry),
    });
    const connections = this.connections(consumer);
    // Without an error listener ioredis reports every connection error as unhandled.
    for (const connection of Object.values(connections)) {
      connection.on('error', (err: Error) => this.logger.error(`Redis: ${err.message}`));
    }
    trackStatus(
      Object.values(connections),
      (status) => this._status$.next(status),
      () => this.closing,
    );
    for (const listener of this.listeners) attachListener(connections, listener);
    this.consumer = consumer;
    try {
      await consumer.start();
    } catch (err) {
      this.consumer = null;
      await consumer.stop(0);
      throw err;
    }
  }

  /**
   * Our patterns are plain strings: a direct lookup. Nest's own first tries JSON.parse on every pattern and
   * throws and catches for each message, a measurable share of a busy replica's time.
   */
  override getHandlerByPattern(pattern: string): MessageHandler | null {
    return this.messageHandlers.get(pattern) ?? super.getHandlerByPattern(pattern);
  }

  /** Handlers of other services' patterns would never be called: their requests go to other streams. */
  private warnAboutForeignPatterns(): void {
    for (const pattern of this.messageHandlers.keys()) {
      if (!pattern.startsWith(`${this.service}.`)) {
        this.logger.warn(`Pattern "${pattern}" does not belong to service "${this.service}" and will not be served`);
      }
    }
  }

  private async processEntry(consumer: StreamConsumer, entry: StreamEntry): Promise<void> {
    let message: RequestMessage;
    try {
      message = decodeRequest(entry.fields);
    } catch (err) {
      this.logger.error(`Dropping malformed entry ${entry.entryId}: ${String(err)}`);
      return consumer.finish(entry.entryId);
    }
    // The handler's span continues the caller's trace; the pg/ioredis spans of its work are its children.
    const kind = message.id === undefined ? SpanKind.CONSUMER : SpanKind.SERVER;
    return inSpan(`rpc ${message.pattern}`, kind, contextFromCarrier(message), (span) => {
      span.setAttributes({ 'rpc.system': 'redis-streams', 'rpc.method': message.pattern });
      return this.dispatch(consumer, entry, message, span);
    });
  }

  private async dispatch(
    consumer: StreamConsumer,
    entry: StreamEntry,
    message: RequestMessage,
    span: Span,
  ): Promise<void> {
    const context = new RedisStreamsContext([message.pattern, entry.entryId, message.metadata, message.deadline]);
    const { id, reply } = message;
    if (id === undefined || reply === undefined) {
      // Acked even if the handler fails: an event has no deadline, so a retry could loop forever.
      try {
        await this.handleEvent(message.pattern, { pattern: message.pattern, data: message.data }, context);
      } finally {
        await consumer.finish(entry.entryId);
      }
      return;
    }
    if (message.deadline !== undefined && message.deadline <= Date.now()) {
      // The caller has given up: running the request now would only do unwanted work.
      return consumer.finish(entry.entryId);
    }
    const handler = this.getHandlerByPattern(message.pattern);
    if (!handler) {
      recordAnswerError(span, NO_MESSAGE_HANDLER);
      const body = JSON.stringify({ id, err: NO_MESSAGE_HANDLER, isDisposed: true } satisfies ReplyBody);
      return consumer.finish(entry.entryId, { channel: reply, body });
    }
    return this.runHandler(consumer, entry.entryId, handler, message, context, id, reply, span);
  }

  /**
   * Resolves once the final reply is published and the entry acked. A handler that returns a value (or a
   * promise of one) is answered directly; only an Observable goes through Nest's streaming machinery, whose
   * RxJS pipeline and next-tick queue would otherwise be paid on every request.
   */
  private async runHandler(
    consumer: StreamConsumer,
    entryId: string,
    handler: MessageHandler,
    message: RequestMessage,
    context: RedisStreamsContext,
    id: string,
    reply: string,
    span: Span,
  ): Promise<void> {
    let packet: WritePacket;
    try {
      const result: unknown = await handler(message.data, context);
      if (isObservable(result))
        return await this.streamReplies(consumer, entryId, result, message, context, id, reply, span);
      packet = { response: result, isDisposed: true };
    } catch (err) {
      recordAnswerError(span, err);
      packet = { err, isDisposed: true };
    }
    const { body } = serializeReply(id, packet);
    await this.finishWithReply(consumer, entryId, message.pattern, reply, body);
  }

  /** Each value of the stream is a reply; the last one and the ack travel together. */
  private streamReplies(
    consumer: StreamConsumer,
    entryId: string,
    result$: Observable<unknown>,
    message: RequestMessage,
    context: RedisStreamsContext,
    id: string,
    reply: string,
    span: Span,
  ): Promise<void> {
    return new Promise<void>((resolve) => {
      let finished = false;
      const respond = (packet: WritePacket): Promise<unknown> | undefined => {
        if (finished) return undefined;
        if (packet.err != null) recordAnswerError(span, packet.err);
        const { body, final } = serializeReply(id, packet);
        if (!final) return publishReply(consumer.commands, reply, body);
        finished = true;
        return this.finishWithReply(consumer, entryId, message.pattern, reply, body).finally(resolve);
      };
      const started: unknown = this.handleRequest(context, () => Promise.resolve(result$), respond);
      // handleRequest rejects if producing the stream fails.
      if (started instanceof Promise) {
        started.catch((err: unknown) => respond({ err, isDisposed: true }));
      }
    });
  }

  /** The final reply and the ack travel together; a failure is logged (the entry will be claimed again). */
  private finishWithReply(
    consumer: StreamConsumer,
    entryId: string,
    pattern: string,
    reply: string,
    body: string,
  ): Promise<void> {
    return consumer
      .finish(entryId, { channel: reply, body })
      .catch((err: unknown) => this.logger.error(`Replying to ${pattern} failed: ${String(err)}`));
  }

  private connections(consumer: StreamConsumer) {
    return { reader: consumer.reader, commands: consumer.commands };
  }
}

/** An error ends the call on the client, so it is final like `isDisposed`. */
function serializeReply(id: string, packet: WritePacket): { body: string; final: boolean } {
  const final = packet.isDisposed === true || packet.err != null;
  const body: ReplyBody = { id };
  if (packet.response !== undefined) body.response = packet.response;
  if (packet.err != null) body.err = toTransportableError(packet.err);
  if (final) body.isDisposed = true;
  try {
    return { body: JSON.stringify(body), final };
  } catch (err) {
    // e.g. a BigInt or a cycle in the response: the caller must still get an answer.
    const failure: ReplyBody = { id, err: toTransportableError(err), isDisposed: true };
    return { body: JSON.stringify(failure), final: true };
  }
}
