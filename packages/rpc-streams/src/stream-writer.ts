// Appends requests to services' request streams: the appends of one turn of the event loop to the same stream go
// to Redis as one script call.
import type { Redis } from 'ioredis';
import { MESSAGE_FIELD } from './wire.js';

/** Appends to one stream per call; each entry is one request, with the same fields a single XADD would write. */
const APPEND_SCRIPT = `
for i = 2, #ARGV do
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', '${MESSAGE_FIELD}', ARGV[i])
end
return #ARGV - 1
`;
const COMMAND = 'conduitRpcAppend';
/** Entries per script call: a burst of thousands is split so that no one call holds Redis for long. */
const MAX_PER_CALL = 256;

type AppendCommand = Record<
  typeof COMMAND,
  (stream: string, maxLength: number, ...messages: string[]) => Promise<number>
>;

interface PendingAppend {
  message: string;
  settle: (err?: unknown) => void;
}

/**
 * Under load a gateway sends many requests per turn of the event loop. One XADD each costs an ioredis command,
 * its promises and its share of the write; one script call for all of them costs that once, and Redis still
 * creates one entry per request, so each is read, claimed and acked on its own as before.
 */
export class StreamWriter {
  private pending = new Map<string, PendingAppend[]>();

  constructor(
    private readonly redis: () => Redis,
    private readonly maxStreamLength: number,
  ) {}

  /** Resolves once the entry is in the stream; rejects with the error of its call. */
  append(stream: string, message: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.pending.size === 0) setImmediate(() => this.flush());
      const entry: PendingAppend = {
        message,
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the batched call's failure, passed on as it was
        settle: (err) => (err === undefined ? resolve() : reject(err)),
      };
      const queued = this.pending.get(stream);
      if (queued) queued.push(entry);
      else this.pending.set(stream, [entry]);
    });
  }

  private flush(): void {
    const batches = this.pending;
    this.pending = new Map();
    let redis: AppendCommand;
    try {
      redis = this.command();
    } catch (err) {
      for (const entries of batches.values()) for (const e of entries) e.settle(err);
      return;
    }
    for (const [stream, entries] of batches) {
      for (let start = 0; start < entries.length; start += MAX_PER_CALL) {
        const chunk = entries.slice(start, start + MAX_PER_CALL);
        redis[COMMAND](stream, this.maxStreamLength, ...chunk.map((e) => e.message)).then(
          () => chunk.forEach((e) => e.settle()),
          (err: unknown) => chunk.forEach((e) => e.settle(err ?? new Error('append failed'))),
        );
      }
    }
  }

  private command(): AppendCommand {
    const redis = this.redis();
    if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: APPEND_SCRIPT });
    return redis as unknown as AppendCommand;
  }
}
