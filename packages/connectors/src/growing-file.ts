/**
 * Reads a file while another writer (DuckDB's COPY TO) is still appending to it, so the file's consumer (a COPY FROM
 * STDIN) works at the same time as its producer instead of after it. Chunks are read from the end already written;
 * when the reader catches up it waits for the file to change (inotify) or for the writer to finish, and it ends only
 * once the writer has finished and every byte is read. A writer that fails makes the reading fail with its error, so
 * a consumer never takes a cut file for a whole one.
 */
import { watch, type FSWatcher } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** When no change event arrives (a watch can miss one), look again after this long. */
const RECHECK_MS = 50;

export async function* readGrowingFile(
  path: string,
  writing: Promise<unknown>,
  chunkBytes: number,
): AsyncGenerator<Buffer> {
  let finished = false;
  let failure: { error: unknown } | undefined;
  const settled = writing.then(
    () => void (finished = true),
    (error: unknown) => void ((finished = true), (failure = { error })),
  );
  let wake: (() => void) | undefined;
  // Both made inside the try: a failing open (or watch) must not leave the other open.
  let watcher: FSWatcher | undefined;
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, 'r');
    watcher = watch(path, () => wake?.());
    watcher.on('error', () => wake?.());
    let position = 0;
    for (;;) {
      // Read the writer's state before the file: bytes written before it finished are then all seen below.
      const done = finished;
      if (failure) throw failure.error;
      const chunk = Buffer.allocUnsafe(chunkBytes);
      const { bytesRead } = await handle.read(chunk, 0, chunkBytes, position);
      if (bytesRead > 0) {
        position += bytesRead;
        yield bytesRead === chunkBytes ? chunk : chunk.subarray(0, bytesRead);
      } else if (done) {
        return;
      } else {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          settled,
          new Promise<void>((resolve) => ((wake = resolve), (timer = setTimeout(resolve, RECHECK_MS)))),
        ]);
        clearTimeout(timer);
        wake = undefined;
      }
    }
  } finally {
    watcher?.close();
    await handle?.close();
  }
}
