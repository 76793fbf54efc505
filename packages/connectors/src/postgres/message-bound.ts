/**
 * A bound on the server messages a connector's PostgreSQL client reads. An error or a notice is the server's to size,
 * and so the tenant's: `raise exception '%', repeat('x', 540000000)` sent a 540 MB ErrorResponse. pg-protocol buffers
 * a message whole and then makes JS strings of it, so such a message took over a gigabyte of the executor's memory,
 * and past V8's longest string its parser threw inside the socket's `data` handler: an uncaught exception that ended
 * the executor with every run on it, again at each takeover (an attacker's probe).
 *
 * Each client's connection gets its `data` handler wrapped (on the plain or the TLS socket, whichever pg parses): the
 * message frames are followed (type byte, 32-bit length), an error or notice over SERVER_NOTICE_MAX_BYTES ends the
 * connection before it is buffered, and anything the parser still throws ends the connection instead of the process.
 * The query in flight fails with that error. pg-copy-streams, which lifts the one `data` handler while a COPY runs and
 * puts it back, does so between messages, where the frames stay in step.
 */
import type { Duplex } from 'node:stream';
import type pg from 'pg';
import { ConnectorError } from '../connector-error.js';

/** The longest error or notice read: PostgreSQL's own, with detail, hint and context, are a few kilobytes. */
export const SERVER_NOTICE_MAX_BYTES = 1024 * 1024;
/** ErrorResponse ('E') and NoticeResponse ('N'), the messages a tenant's SQL can make any size. */
const BOUNDED_TYPES = new Map<number, string>([
  [0x45, 'an error'],
  [0x4e, 'a notice'],
]);
const HEADER_BYTES = 5;

/** pg's connection object, which its type declarations do not show. */
interface ProtocolConnection {
  attachListeners(stream: Duplex): void;
}

/** Wraps `client`'s protocol parsing as above; call before it connects. */
export function boundServerMessages(client: pg.Client): void {
  const connection = (client as unknown as { connection: ProtocolConnection }).connection;
  const attach = connection.attachListeners.bind(connection);
  connection.attachListeners = (stream) => {
    attach(stream);
    const parse = stream.listeners('data').at(-1) as (chunk: Buffer) => void;
    stream.removeListener('data', parse);
    const frames = new FrameReader();
    stream.on('data', (chunk: Buffer) => {
      const refused = frames.read(chunk);
      if (refused !== undefined) {
        stream.destroy(
          new ConnectorError(
            `the server sent ${refused}, more than the ${SERVER_NOTICE_MAX_BYTES} bytes read of one: the connection was closed`,
            'config_error',
          ),
        );
        return;
      }
      try {
        parse(chunk);
      } catch (err) {
        // A message pg cannot turn into values (a string past V8's longest): this connection's failure, not the process's.
        stream.destroy(err instanceof Error ? err : new Error(String(err)));
      }
    });
  };
}

/** Follows PostgreSQL's message frames across chunks. */
export class FrameReader {
  private readonly header = Buffer.alloc(HEADER_BYTES);
  private headerBytes = 0;
  /** Bytes of the current message's body not seen yet. */
  private remaining = 0;

  /** Reads `chunk`; answers what was refused ("an error of N bytes") when a bounded message is too long. */
  read(chunk: Buffer): string | undefined {
    let at = 0;
    while (at < chunk.length) {
      if (this.remaining > 0) {
        const skipped = Math.min(this.remaining, chunk.length - at);
        this.remaining -= skipped;
        at += skipped;
        continue;
      }
      const taken = Math.min(HEADER_BYTES - this.headerBytes, chunk.length - at);
      chunk.copy(this.header, this.headerBytes, at, at + taken);
      this.headerBytes += taken;
      at += taken;
      if (this.headerBytes < HEADER_BYTES) break;
      this.headerBytes = 0;
      // The length counts itself, not the type byte.
      const body = this.header.readUInt32BE(1) - 4;
      const kind = BOUNDED_TYPES.get(this.header[0]!);
      if (kind !== undefined && body > SERVER_NOTICE_MAX_BYTES) return `${kind} of ${body} bytes`;
      this.remaining = Math.max(0, body);
    }
    return undefined;
  }
}
