import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { ClientProxy, type MsPattern, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { Redis } from 'ioredis';
import { EmptyError } from 'rxjs';
import { attachListener, type ConnectionListener, type RedisStreamsEvents, trackStatus } from './connection-events.js';
import {
  type RedisStreamsOptions,
  replyChannel,
  requestStreamKey,
  resolveOptions,
  type ResolvedOptions,
  serviceOfPattern,
} from './options.js';
import { RpcTimeoutError } from './rpc-timeout.error.js';
import { RedisUnavailableError } from './redis-unavailable.error.js';
import { startCallSpan } from './call-span.js';
import { traceCarrierOf } from './trace-context.js';
import { decodeReplies, encodeRequest, replyReferenceOf, type ReplyBody } from './wire.js';
import { StreamWriter } from './stream-writer.js';

/** Per call. */
export interface CallOptions {
  /** How long this call waits for its reply; default: the client's `timeoutMs`. */
  timeoutMs?: number;
}

interface Connections {
  publisher: Redis;
  subscriber: Redis;
}

/**
 * Sends requests to a service's Redis stream and receives the replies on a pub/sub channel of
 * its own (one subscriber connection per client instance, whatever the number of calls).
 */
export class RedisStreamsClient extends ClientProxy<RedisStreamsEvents> {
  private readonly logger = new Logger(RedisStreamsClient.name);
  private readonly options: ResolvedOptions;
  /** Identifies this client's reply channel. */
  readonly clientId = randomUUID();
  private readonly replyTo: string;
  private connections: Connections | null = null;
  /** Messages behind a reply reference being fetched (onMessage), delivered in order. */
  private referenced: Promise<void> = Promise.resolve();
  private fetchingReferences = 0;
  private connection: Promise<void> | null = null;
  /** The connection has been opened and the reply channel subscribed: calls need not wait on connect(). */
  private ready = false;
  private listeners: ConnectionListener[] = [];
  private closing = false;
  private readonly writer: StreamWriter;

  constructor(opts: RedisStreamsOptions) {
    super();
    this.options = resolveOptions(opts);
    this.replyTo = replyChannel(this.options.prefix, this.clientId);
    // Handled entries are deleted by the server; the cap only bounds a backlog nobody reads.
    this.writer = new StreamWriter(() => this.requireConnections().publisher, this.options.maxStreamLength);
  }

  /** Idempotent; `send` calls it before every request. */
  connect(): Promise<void> {
    if (!this.connection) {
      this.connection = this.open().catch((err: unknown) => {
        this.connection = null;
        this.dropConnections();
        throw err;
      });
    }
    return this.connection;
  }

  async close(): Promise<void> {
    this.closing = true;
    this.ready = false;
    const waiting = [...this.routingMap.values()] as ((packet: WritePacket) => void)[];
    this.routingMap.clear();
    for (const callback of waiting) callback({ err: new Error('RPC client is closed') });
    const connections = this.connections;
    this.connections = null;
    this.connection = null;
    if (connections) {
      await Promise.allSettled([connections.publisher.quit(), connections.subscriber.quit()]);
    }
    this.closing = false;
  }

  override on<EventKey extends keyof RedisStreamsEvents>(
    event: EventKey,
    callback: RedisStreamsEvents[EventKey],
  ): void {
    const listener = { event, callback } as ConnectionListener;
    this.listeners.push(listener);
    if (this.connections) attachListener({ ...this.connections }, listener);
  }

  /** The ioredis connections: `{ publisher, subscriber }`. */
  unwrap<T>(): T {
    if (!this.connections) throw new Error('Not initialized. Call "connect" first.');
    return { ...this.connections } as T;
  }

  /**
   * One request, one reply, as a promise: `firstValueFrom(send(...))` without the Observable machinery (a deferred
   * connect, a merge and a subscription per call), which is a measurable share of a gateway request. Same wire,
   * packet hooks, ids, timeout and errors; rejects with rxjs's EmptyError when the handler answers nothing.
   */
  async request<T>(pattern: string, data: unknown, opts: CallOptions = {}): Promise<T> {
    if (!this.ready) await this.connect();
    const timeoutMs = opts.timeoutMs ?? this.options.timeoutMs;
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const teardown = this.publishWithin(
        this.createPacket(pattern, data),
        timeoutMs,
        ({ err, response, isDisposed }) => {
          if (settled) return;
          if (err) {
            settled = true;
            reject(err);
          } else if (response !== undefined) {
            settled = true;
            resolve(response as T);
          } else if (isDisposed) {
            settled = true;
            reject(new EmptyError());
          } else {
            return;
          }
          // Settled: stop waiting (the timer, the routing entry), as unsubscribing from send() would.
          queueMicrotask(() => teardown());
        },
      );
    });
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    return this.publishWithin(packet, this.options.timeoutMs, callback);
  }

  private publishWithin(packet: ReadPacket, timeoutMs: number, onPacket: (packet: WritePacket) => void): () => void {
    const { id } = this.assignPacketId(packet);
    const pattern = this.normalizePattern(packet.pattern as MsPattern);
    // The call's span ends with its final packet (reply, error or timeout); its context travels in the entry.
    const { callback, carrier } = startCallSpan(pattern, onPacket);
    const timer = setTimeout(() => {
      if (this.routingMap.delete(id)) callback({ err: new RpcTimeoutError(pattern, timeoutMs) });
    }, timeoutMs);
    const teardown = () => {
      clearTimeout(timer);
      this.routingMap.delete(id);
    };
    const fail = (err: unknown) => {
      if (!this.routingMap.delete(id)) return;
      clearTimeout(timer);
      callback({ err });
    };
    this.routingMap.set(id, callback);
    // Connected once and now reconnecting: a queued request would run after its caller gave up on it.
    if (this.ready && this.connections?.publisher.status !== 'ready') {
      fail(new RedisUnavailableError(pattern));
      return teardown;
    }
    try {
      const message = encodeRequest({
        id,
        pattern,
        data: packet.data,
        reply: this.replyTo,
        deadline: Date.now() + timeoutMs,
        ...(packet.metadata && { metadata: packet.metadata }),
        ...carrier,
      });
      this.writer.append(this.streamOf(pattern), message).catch(fail);
    } catch (err) {
      fail(err);
    }
    return teardown;
  }

  /** `emit`: the event goes to exactly one replica of the pattern's service; nobody waits for it. */
  protected async dispatchEvent<T = unknown>(packet: ReadPacket): Promise<T> {
    const pattern = this.normalizePattern(packet.pattern as MsPattern);
    const message = encodeRequest({
      pattern,
      data: packet.data,
      ...(packet.metadata && { metadata: packet.metadata }),
      ...traceCarrierOf(),
    });
    await this.writer.append(this.streamOf(pattern), message);
    return undefined as T;
  }

  private async open(): Promise<void> {
    const { url } = this.options;
    const connections: Connections = {
      // The requests of one turn of the event loop already share one call (StreamWriter).
      publisher: new Redis(url, {
        lazyConnect: true,
        ...(this.options.commandTimeoutMs > 0 && { commandTimeout: this.options.commandTimeoutMs }),
      }),
      subscriber: new Redis(url, { lazyConnect: true }),
    };
    this.connections = connections;
    const both = [connections.publisher, connections.subscriber];
    for (const connection of both) {
      connection.on('error', (err: Error) => this.logger.error(`Redis: ${err.message}`));
    }
    trackStatus(
      both,
      (status) => this._status$.next(status),
      () => this.closing,
    );
    for (const listener of this.listeners) attachListener({ ...connections }, listener);
    connections.subscriber.on('message', (_channel: string, body: string) => this.onMessage(body));
    // Replies published while the subscriber is away are lost: the calls waiting for them fail now, not at the timeout.
    connections.subscriber.on('close', () => this.failWaiting());
    await Promise.all([connections.publisher.connect(), connections.subscriber.connect()]);
    // Subscribed before the first request goes out, so no reply can arrive unheard.
    await connections.subscriber.subscribe(this.replyTo);
    this.ready = true;
  }

  /**
   * A published reply, or a reference to one stored apart (wire.ts publishReply), taken with GETDEL. While a reference
   * is being fetched, later messages wait their turn behind it: a stream's values arrive in the order they were sent.
   */
  private onMessage(body: string): void {
    const ref = replyReferenceOf(body);
    if (ref === undefined && this.fetchingReferences === 0) return this.onReply(body);
    const publisher = this.connections?.publisher;
    const fetched = ref === undefined ? Promise.resolve(body) : (publisher?.getdel(ref) ?? Promise.resolve(null));
    this.fetchingReferences += 1;
    this.referenced = this.referenced
      .then(async () => {
        const text = await fetched.catch(() => null);
        // Gone (expired, or Redis away): the call it answered fails at its timeout, as a lost reply would.
        if (text === null) this.logger.warn('A reply stored apart could not be read');
        else this.onReply(text);
      })
      .finally(() => (this.fetchingReferences -= 1));
  }

  private onReply(body: string): void {
    let replies: ReplyBody[];
    try {
      replies = decodeReplies(body);
    } catch {
      this.logger.warn('Ignoring a reply that is not JSON');
      return;
    }
    for (const reply of replies) {
      // A reply after the timeout finds no callback and is dropped.
      const callback = this.routingMap.get(reply.id) as ((packet: WritePacket) => void) | undefined;
      if (!callback) continue;
      callback({
        response: reply.response,
        ...(reply.err != null && { err: reply.err }),
        ...(reply.isDisposed && { isDisposed: true }),
      });
    }
  }

  private failWaiting(): void {
    if (this.closing) return;
    const waiting = [...this.routingMap.entries()] as [string, (packet: WritePacket) => void][];
    this.routingMap.clear();
    for (const [, callback] of waiting) callback({ err: new RedisUnavailableError('an RPC call', true) });
  }

  private streamOf(pattern: string): string {
    return requestStreamKey(this.options.prefix, serviceOfPattern(pattern));
  }

  private requireConnections(): Connections {
    if (!this.connections) throw new Error('RPC client is closed');
    return this.connections;
  }

  private dropConnections(): void {
    this.ready = false;
    const connections = this.connections;
    this.connections = null;
    connections?.publisher.disconnect();
    connections?.subscriber.disconnect();
  }
}
