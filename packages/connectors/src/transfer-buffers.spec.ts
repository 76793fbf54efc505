import { csvReaderSizes } from './transfer-buffers.js';

const MiB = 1024 * 1024;
const buffers = { csvMaxLineBytes: 5 * MiB, csvBufferBytes: 10 * MiB, streamChunkBytes: 64 * 1024 };

describe('csvReaderSizes', () => {
  it('sizes the reader to a small file: no line is longer than the file', () => {
    expect(csvReaderSizes(buffers, 2)).toEqual({ maxLineBytes: 64 * 1024, bufferBytes: 128 * 1024 });
    expect(csvReaderSizes(buffers, MiB)).toEqual({ maxLineBytes: MiB + 1, bufferBytes: 2 * MiB + 2 });
  });

  it('keeps the configured limits for a file as large as a line may be, or of unknown size', () => {
    const configured = { maxLineBytes: 5 * MiB, bufferBytes: 10 * MiB };
    expect(csvReaderSizes(buffers, 5 * MiB)).toEqual(configured);
    expect(csvReaderSizes(buffers, 64 * MiB)).toEqual(configured);
    expect(csvReaderSizes(buffers)).toEqual(configured);
    // Never a buffer larger than configured, and always larger than the line.
    const tight = { ...buffers, csvBufferBytes: 5 * MiB + 1 };
    expect(csvReaderSizes(tight, 4 * MiB)).toEqual({ maxLineBytes: 4 * MiB + 1, bufferBytes: 5 * MiB + 1 });
  });
});
