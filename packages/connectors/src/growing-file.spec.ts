// Reading a file while its writer still appends: every byte in order, the end only once the writer has finished, and
// the writer's failure rather than a quiet end of a cut file.
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readGrowingFile } from './growing-file.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'growing-file-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Appends `parts` one by one, yielding to the event loop between them (so the reader catches up and waits). */
async function slowWriter(file: string, parts: readonly string[], failAfter?: number): Promise<void> {
  for (const [i, part] of parts.entries()) {
    await new Promise((resolve) => setImmediate(resolve));
    if (i === failAfter) throw new Error('the export failed');
    await appendFile(file, part);
  }
}

async function readAll(file: string, writing: Promise<unknown>, chunkBytes = 7): Promise<string> {
  let text = '';
  for await (const chunk of readGrowingFile(file, writing, chunkBytes)) text += chunk.toString('utf8');
  return text;
}

it('reads what the writer appends while it writes, in order, and ends once it has finished', async () => {
  const file = join(dir, 'slow.csv');
  await writeFile(file, '');
  const parts = Array.from({ length: 200 }, (_, i) => `"row ${i}",${i}\n`);
  expect(await readAll(file, slowWriter(file, parts))).toBe(parts.join(''));
});

it('reads a file whose writer had already finished', async () => {
  const file = join(dir, 'done.csv');
  await writeFile(file, 'a,b\n'.repeat(1000));
  expect(await readAll(file, Promise.resolve(), 64 * 1024)).toBe('a,b\n'.repeat(1000));
});

it("fails with the writer's error, after what it wrote, instead of ending as if the file were whole", async () => {
  const file = join(dir, 'cut.csv');
  await writeFile(file, '');
  const parts = Array.from({ length: 50 }, (_, i) => `${i}\n`);
  const writing = slowWriter(file, parts, 20);
  await expect(readAll(file, writing)).rejects.toThrow('the export failed');
});

it('fails on a file that can be watched but not opened, leaving no watch behind', async () => {
  // A socket file: inotify watches it, open() refuses it (ENXIO), even for root.
  const path = join(dir, 'socket');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(path, resolve));
  try {
    const watches = () => process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;
    const before = watches();
    await expect(readAll(path, Promise.resolve())).rejects.toMatchObject({ code: 'ENXIO' });
    expect(watches()).toBe(before);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
