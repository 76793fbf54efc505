// One replica's membership of a service's consumer group: reads, claims, acks. Knows nothing of Nest.
import type { LoggerService } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { encodeReplies, publishReply } from './wire.js';

export interface StreamEntry {
  entryId: string;
  /** Flat field/value list as Redis returns it. */
  fields: string[];
}

export interface StreamConsumerConfig {
  url: string;
  stream: string;
  group: string;
  consumer: string;
  concurrency: number;
  blockMs: number;
  claimIdleMs: number;
  logger: LoggerService;
  /** Handles one entry; resolves once the entry is finished (see {@link StreamConsumer.finish}). */
  process: (entry: StreamEntry) => Promise<void>;
}

/** A final reply to publish as an entry is finished. */
export interface FinalReply {
  /** The caller's reply channel. */
  channel: string;
  /** The reply as JSON. */
  body: string;
}

interface PendingFinish {
  entryId: string;
  reply?: FinalReply;
  settle: (err?: unknown) => void;
}

type XReadGroupReply = [stream: string, entries: [entryId: string, fields: string[]][]][] | null;
type XAutoClaimReply = [cursor: string, entries: [entryId: string, fields: string[] | null][], deleted?: string[]];

/** Consumers of dead replicas with nothing pending are removed from the group after this long. */
const DEAD_CONSUMER_IDLE_MS = 10 * 60_000;
const READ_ERROR_BACKOFF_MS = 1000;
const UNBLOCK_PATIENCE_MS = 2000;

/** Connection errors of a client whose callers meet them as errors of their own commands. */
const ignoreConnectionError = (): void => undefined;

export class StreamConsumer {
  /** Dedicated to the blocking XREADGROUP: a blocked connection cannot serve other commands. */
  readonly reader: Redis;
  /** Acks, replies, claims. */
  readonly commands: Redis;

  private readonly inFlight = new Set<string>();
  private slotFreed: (() => void) | null = null;
  private running = false;
  private readLoop: Promise<void> = Promise.resolve();
  private claimTimer: NodeJS.Timeout | null = null;
  private claiming = false;
  private claimCursor = '0-0';
  private lastHousekeeping = 0;
  private readerClientId = 0;
  /** Entries finished in this turn of the event loop, sent together by {@link flushFinished}. */
  private finished: PendingFinish[] = [];

  constructor(private readonly config: StreamConsumerConfig) {
    // The reader retries its blocking read itself; ioredis must not fail it after N reconnects.
    this.reader = new Redis(config.url, { lazyConnect: true, maxRetriesPerRequest: null });
    // Auto-pipelining: replies and claims issued in one turn of the event loop go out in one write.
    this.commands = new Redis(config.url, { lazyConnect: true, enableAutoPipelining: true });
    // ioredis reconnects by itself; an outage reaches the read loop and the commands as errors, which say it. Without
    // a listener, each reconnect attempt printed an 'Unhandled error event' stack to stderr.
    this.reader.on('error', ignoreConnectionError);
    this.commands.on('error', ignoreConnectionError);
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  async start(): Promise<void> {
    await Promise.all([this.reader.connect(), this.commands.connect()]);
    this.readerClientId = Number(await this.reader.client('ID'));
    await this.ensureGroup();
    this.running = true;
    this.readLoop = this.runReadLoop();
    const tickMs = Math.max(10, Math.floor(this.config.claimIdleMs / 2));
    this.claimTimer = setInterval(() => void this.claimTick(), tickMs);
  }

  /**
   * Stops reading, waits up to `drainMs` for handlers in flight, then leaves the group.
   * Entries still unfinished stay pending and are claimed by another replica.
   */
  async stop(drainMs: number): Promise<void> {
    if (!this.running) {
      this.reader.disconnect();
      this.commands.disconnect();
      return;
    }
    this.running = false;
    if (this.claimTimer) clearInterval(this.claimTimer);
    this.slotFreed?.();
    await this.interruptRead();
    const drainDeadline = Date.now() + drainMs;
    while (this.inFlight.size > 0 && Date.now() < drainDeadline) await sleep(10);
    while (this.claiming) await sleep(10);
    await this.leaveGroupIfIdle().catch((err) => {
      // A stream deleted meanwhile (tests clean up) leaves no group to leave.
      if (!/NOGROUP|requires the key to exist/.test(String(err))) {
        this.config.logger.warn?.(`leaving group failed: ${String(err)}`);
      }
    });
    await Promise.allSettled([this.reader.quit(), this.commands.quit()]);
  }

  /**
   * Publishes `reply` (if any), then XACK and XDEL, in one MULTI: the entry is done. Entries finished in the same
   * turn of the event loop share one MULTI (one write, one XACK and one XDEL for all) and their replies to the same
   * caller one PUBLISH (see encodeReplies), which is what keeps a busy replica, Redis and the caller from spending
   * their time on syscalls and messages; each entry's reply and ack still land together.
   */
  finish(entryId: string, reply?: FinalReply): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.finished.length === 0) setImmediate(() => void this.flushFinished());
      this.finished.push({
        entryId,
        ...(reply && { reply }),
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the batch's own failure, passed on as it was
        settle: (err) => (err === undefined ? resolve() : reject(err)),
      });
    });
  }

  private async flushFinished(): Promise<void> {
    const batch = this.finished;
    this.finished = [];
    const { stream, group } = this.config;
    const ids = batch.map((f) => f.entryId);
    const repliesByChannel = new Map<string, string[]>();
    for (const { reply } of batch) {
      if (!reply) continue;
      const bodies = repliesByChannel.get(reply.channel);
      if (bodies) bodies.push(reply.body);
      else repliesByChannel.set(reply.channel, [reply.body]);
    }
    const tx = this.commands.multi();
    for (const [channel, bodies] of repliesByChannel) publishReply(tx, channel, encodeReplies(bodies));
    let failure: unknown;
    try {
      const results = await tx
        .xack(stream, group, ...ids)
        .xdel(stream, ...ids)
        .exec();
      failure = results?.find(([err]) => err !== null)?.[0] ?? undefined;
    } catch (err) {
      failure = err ?? new Error('MULTI failed');
    }
    for (const f of batch) f.settle(failure);
  }

  private async ensureGroup(): Promise<void> {
    const { stream, group } = this.config;
    try {
      // From 0, not $: requests sent before the first replica started are still served if not expired.
      await this.commands.xgroup('CREATE', stream, group, '0', 'MKSTREAM');
    } catch (err) {
      if (!String(err).includes('BUSYGROUP')) throw err;
    }
  }

  private async runReadLoop(): Promise<void> {
    const { stream, group, consumer, concurrency, blockMs, logger } = this.config;
    while (this.running) {
      await this.waitForFreeSlot();
      if (!this.running) break;
      let reply: XReadGroupReply;
      try {
        const count = concurrency - this.inFlight.size;
        reply = (await this.reader.xreadgroup(
          'GROUP',
          group,
          consumer,
          'COUNT',
          count,
          'BLOCK',
          blockMs,
          'STREAMS',
          stream,
          '>',
        )) as XReadGroupReply;
      } catch (err) {
        if (!this.running) break;
        if (String(err).includes('NOGROUP')) {
          // The stream was deleted under us: recreate it and carry on.
          await this.ensureGroup().catch((e: unknown) => {
            logger.error(`recreating group failed: ${String(e)}`);
          });
        } else {
          logger.error(`XREADGROUP on ${stream} failed: ${String(err)}`);
          await sleep(READ_ERROR_BACKOFF_MS);
        }
        continue;
      }
      for (const [, entries] of reply ?? []) {
        for (const [entryId, fields] of entries) this.dispatch({ entryId, fields });
      }
    }
  }

  /** Runs an entry without awaiting it, so one slow handler does not hold up the next batch. */
  private dispatch(entry: StreamEntry): void {
    if (this.inFlight.has(entry.entryId)) return;
    this.inFlight.add(entry.entryId);
    this.config
      .process(entry)
      .catch((err: unknown) => {
        this.config.logger.error(`entry ${entry.entryId} failed: ${String(err)}`);
      })
      .finally(() => {
        this.inFlight.delete(entry.entryId);
        const wake = this.slotFreed;
        this.slotFreed = null;
        wake?.();
      });
  }

  private waitForFreeSlot(): Promise<void> {
    if (this.inFlight.size < this.config.concurrency) return Promise.resolve();
    return new Promise((resolve) => (this.slotFreed = resolve));
  }

  /**
   * CLIENT UNBLOCK ends a blocked XREADGROUP at once, unlike disconnecting, which could drop
   * entries Redis already delivered. Repeated because the read may not have reached Redis yet.
   */
  private async interruptRead(): Promise<void> {
    let done = false;
    const loopEnded = this.readLoop.then(() => (done = true));
    const giveUpAt = Date.now() + UNBLOCK_PATIENCE_MS;
    while (!done && Date.now() < giveUpAt) {
      await this.commands.client('UNBLOCK', this.readerClientId).catch(() => undefined);
      await Promise.race([loopEnded, sleep(50)]);
    }
    // e.g. the reader is reconnecting, its read queued: dropping the connection fails the read.
    if (!done) {
      this.reader.disconnect();
      await loopEnded;
    }
  }

  private async claimTick(): Promise<void> {
    if (this.claiming || !this.running) return;
    this.claiming = true;
    try {
      await this.heartbeat();
      await this.claimAbandoned();
      if (Date.now() - this.lastHousekeeping > DEAD_CONSUMER_IDLE_MS / 10) {
        this.lastHousekeeping = Date.now();
        await this.removeDeadConsumers();
      }
    } catch (err) {
      this.config.logger.warn?.(`claiming on ${this.config.stream} failed: ${String(err)}`);
    } finally {
      this.claiming = false;
    }
  }

  /** Resets the idle time of entries still being handled here, so no other replica claims them. */
  private async heartbeat(): Promise<void> {
    if (this.inFlight.size === 0) return;
    const { stream, group, consumer } = this.config;
    await this.commands.xclaim(stream, group, consumer, 0, ...this.inFlight, 'JUSTID');
  }

  /** Takes over entries a dead (or stuck) replica read but never acked. */
  private async claimAbandoned(): Promise<void> {
    const { stream, group, consumer, concurrency, claimIdleMs } = this.config;
    const free = concurrency - this.inFlight.size;
    if (free <= 0) return;
    const [cursor, entries] = (await this.commands.xautoclaim(
      stream,
      group,
      consumer,
      claimIdleMs,
      this.claimCursor,
      'COUNT',
      free,
    )) as XAutoClaimReply;
    this.claimCursor = cursor;
    for (const [entryId, fields] of entries) {
      // Entries deleted from the stream come back without fields (Redis drops them from the PEL).
      if (fields && this.running) this.dispatch({ entryId, fields });
    }
  }

  private async removeDeadConsumers(): Promise<void> {
    const { stream, group, consumer } = this.config;
    const rows = (await this.commands.xinfo('CONSUMERS', stream, group)) as (string | number)[][];
    for (const row of rows) {
      const info = new Map<string, string | number>();
      for (let i = 0; i + 1 < row.length; i += 2) info.set(String(row[i]), row[i + 1] as string | number);
      const name = String(info.get('name'));
      if (name !== consumer && Number(info.get('pending')) === 0 && Number(info.get('idle')) > DEAD_CONSUMER_IDLE_MS) {
        await this.commands.xgroup('DELCONSUMER', stream, group, name);
      }
    }
  }

  /** DELCONSUMER drops the consumer's pending entries, so only leave with none pending. */
  private async leaveGroupIfIdle(): Promise<void> {
    const { stream, group, consumer } = this.config;
    const pending = await this.commands.xpending(stream, group, '-', '+', 1, consumer);
    if (pending.length === 0) await this.commands.xgroup('DELCONSUMER', stream, group, consumer);
  }
}
