/**
 * A CSV byte stream written as a series of part files of about `partBytes` each, cut only between records (at a
 * newline outside quotes: quoting as PostgreSQL's COPY CSV writes it, a quote inside a value doubled), so that DuckDB
 * loads one part while the next is still arriving. `parts()` yields each completed part in order; it ends once the
 * stream has ended, and fails with the stream's error if it is destroyed, so a cut stream is never taken for a whole.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { removeFile } from './remove-file.js';
import { Writable } from 'node:stream';

const QUOTE = 0x22;
const NEWLINE = 0x0a;

export class CsvPartFiles extends Writable {
  /** Every part file made, loaded or not: what the caller removes at the end. */
  readonly files: string[] = [];
  private readonly completed: string[] = [];
  /** Bytes of each completed part. */
  private readonly sizes = new Map<string, number>();
  private handle: FileHandle | undefined;
  private size = 0;
  private inQuotes = false;
  private finished = false;
  private failure: { error: unknown } | undefined;
  private wake: (() => void) | undefined;
  /** The write in progress: destroying waits for it, so no part is opened after the stream is gone. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly prefix: string,
    private readonly partBytes: number,
    highWaterMark: number,
  ) {
    super({ highWaterMark });
    // The error reaches the reader through parts(); as an 'error' event with no listener it would end the process.
    this.on('error', () => undefined);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.writing = this.put(chunk);
    this.writing.then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.endPart()
      .then(() => {
        this.finished = true;
        this.wake?.();
        callback();
      })
      .catch(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.finished) this.failure = { error: error ?? new Error('the CSV stream was destroyed before it ended') };
    this.wake?.();
    this.writing
      .catch(() => undefined)
      .then(async () => {
        const handle = this.handle;
        this.handle = undefined;
        await handle?.close();
      })
      .then(
        () => callback(error),
        () => callback(error),
      );
  }

  /** Destroys the stream (if still open) and removes every part file it made. */
  async dispose(): Promise<void> {
    if (!this.closed) {
      const closed = new Promise<void>((resolve) => this.once('close', () => resolve()));
      this.destroy();
      await closed;
    }
    await Promise.all(this.files.map(removeFile));
  }

  /** The bytes of a part `parts()` yielded. */
  bytesOf(file: string): number | undefined {
    return this.sizes.get(file);
  }

  /** The completed parts, in order, as they complete. */
  async *parts(): AsyncGenerator<string> {
    for (;;) {
      if (this.failure) throw this.failure.error;
      const next = this.completed.shift();
      if (next !== undefined) yield next;
      else if (this.finished) return;
      else await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private async put(chunk: Buffer): Promise<void> {
    let start = 0; // the first byte not written yet
    let scanned = 0; // whether a quote is open is known up to here
    while (start < chunk.length) {
      this.handle ??= await this.openPart();
      // Where this part is full; from there, the first newline outside quotes ends it.
      let search = start + Math.max(0, this.partBytes - this.size);
      let boundary = -1;
      while (search < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, search);
        if (newline === -1) break;
        this.scanQuotes(chunk, scanned, newline);
        scanned = newline;
        if (!this.inQuotes) {
          boundary = newline;
          break;
        }
        search = newline + 1;
      }
      const end = boundary === -1 ? chunk.length : boundary + 1;
      this.scanQuotes(chunk, scanned, end);
      scanned = end;
      await writeAll(this.handle, chunk.subarray(start, end));
      this.size += end - start;
      start = end;
      if (boundary !== -1) await this.endPart();
    }
  }

  /** A doubled quote inside a value flips twice: only the parity of the quotes seen matters. */
  private scanQuotes(chunk: Buffer, from: number, to: number): void {
    for (let at = chunk.indexOf(QUOTE, from); at !== -1 && at < to; at = chunk.indexOf(QUOTE, at + 1))
      this.inQuotes = !this.inQuotes;
  }

  private async openPart(): Promise<FileHandle> {
    const file = `${this.prefix}-${this.files.length}.csv`;
    this.files.push(file);
    return open(file, 'wx');
  }

  private async endPart(): Promise<void> {
    const handle = this.handle;
    if (!handle) return;
    this.handle = undefined;
    await handle.close();
    const file = this.files[this.files.length - 1]!;
    if (this.size === 0) await removeFile(file);
    else {
      this.sizes.set(file, this.size);
      this.completed.push(file);
    }
    this.size = 0;
    this.wake?.();
  }
}

/** FileHandle.write may write fewer bytes than asked (a nearly full disk): write the rest, or fail, never cut a part. */
async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  for (let at = 0; at < bytes.length;) {
    const { bytesWritten } = await handle.write(bytes, at, bytes.length - at);
    if (bytesWritten <= 0) throw new Error('writing a CSV part wrote no bytes (is the scratch volume full?)');
    at += bytesWritten;
  }
}
