// COPY CSV cut into parts for loading while it still arrives: cuts only between records (never inside a quoted value,
// whatever newlines and doubled quotes it holds, wherever the chunks fall), nothing lost or reordered, and a stream
// destroyed part way makes the reader fail instead of ending.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvPartFiles } from './csv-parts.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'csv-parts-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Records with quoted newlines, doubled quotes and commas, as PostgreSQL's COPY CSV prints them. */
const RECORDS = Array.from({ length: 500 }, (_, i) =>
  i % 3 === 0
    ? `${i},"line one\nline ""two"", with comma\n",x\n`
    : i % 3 === 1
      ? `${i},,"""\n"""\n`
      : `${i},plain,${'y'.repeat(i % 40)}\n`,
);
const TEXT = RECORDS.join('');

/** The bytes in chunks of `size` (cutting anywhere: inside quotes, between a doubled quote's two halves). */
const chunksOf = (size: number) =>
  Array.from({ length: Math.ceil(TEXT.length / size) }, (_, i) => Buffer.from(TEXT.slice(i * size, (i + 1) * size)));

it.each([1, 7, 64, 4096])(
  'cuts only between records and keeps every byte in order (chunks of %i bytes)',
  async (chunkSize) => {
    const parts = new CsvPartFiles(join(dir, `p${chunkSize}`), 300, 1024);
    const read = (async () => {
      const texts: string[] = [];
      for await (const file of parts.parts()) texts.push(await readFile(file, 'utf8'));
      return texts;
    })();
    await pipeline(Readable.from(chunksOf(chunkSize)), parts);
    const texts = await read;
    expect(texts.length).toBeGreaterThan(10);
    expect(texts.join('')).toBe(TEXT);
    // Each part is whole records: it is the concatenation of a run of them.
    let next = 0;
    for (const text of texts) {
      let taken = '';
      while (taken.length < text.length) taken += RECORDS[next++];
      expect(taken).toBe(text);
    }
  },
);

it('makes the reader fail when the stream is destroyed before it ends', async () => {
  const parts = new CsvPartFiles(join(dir, 'cut'), 100, 1024);
  const read = (async () => {
    for await (const _file of parts.parts()) void _file;
  })();
  parts.write(Buffer.from(TEXT.slice(0, 1000)));
  parts.destroy(new Error('COPY failed'));
  await expect(read).rejects.toThrow('COPY failed');
  await parts.dispose();
  expect(await readdir(dir)).not.toContainEqual(expect.stringMatching(/^cut-/));
});
