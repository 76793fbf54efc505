import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScratchAllowance } from './scratch-limit.js';

describe('ScratchAllowance', () => {
  it('shares one limit among the reads of one scratch folder, gives back what a read took, and keeps folders apart', () => {
    const first = new ScratchAllowance('/scratch/run_a', 100);
    const second = new ScratchAllowance('/scratch/run_a', 100);
    const otherRun = new ScratchAllowance('/scratch/run_b', 100);
    first.take(60);
    expect(() => second.take(41)).toThrow(/more than 100 bytes .*\(RUN_SCRATCH_LIMIT\)/);
    expect(() => second.ensureRoom(41)).toThrow(/RUN_SCRATCH_LIMIT/);
    second.take(40);
    otherRun.take(100);
    first.release();
    second.take(60);
    expect(() => second.take(1)).toThrow(
      expect.objectContaining({ errorClass: 'config_error', code: 'scratch_limit' }) as Error,
    );
    second.release();
    otherRun.release();
    new ScratchAllowance('/scratch/run_a', 100).take(100);
  });

  it('counts the chunks streamed through it, and fails the stream past the limit', async () => {
    const { pipeline } = await import('node:stream/promises');
    const { Readable } = await import('node:stream');
    const { createWriteStream } = await import('node:fs');
    const folder = await mkdtemp(join(tmpdir(), 'scratch-limit-'));
    try {
      const allowance = new ScratchAllowance(folder, 4 * 1024);
      const chunks = Array.from({ length: 8 }, () => Buffer.alloc(1024));
      await expect(
        pipeline(Readable.from(chunks), allowance.counter(), createWriteStream(join(folder, 'f'))),
      ).rejects.toMatchObject({
        errorClass: 'config_error',
        message: expect.stringMatching(/more than 4KiB/) as string,
      });
      allowance.release();
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
