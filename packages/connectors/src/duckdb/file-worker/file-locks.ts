/**
 * One DuckDB file, one writer: DuckDB lets one process write a file, or any number read it (read-only), never both.
 * In one process two instances of a file did not conflict (the lock is the process's); the file workers are processes
 * of their own, so a run's source and its sql node on the same file would fail each other's open ("Conflicting
 * lock"). Work on a file therefore waits for the file here: reads together, a write alone, in the order asked (a
 * write waiting holds back the reads asked after it). Another executor's work on the file still meets DuckDB's lock,
 * as before: that error is transient, and the node's retries wait for it.
 */

export type FileAccess = 'read' | 'write';

interface Request {
  access: FileAccess;
  grant: () => void;
}

interface FileState {
  readers: number;
  writing: boolean;
  queue: Request[];
}

const files = new Map<string, FileState>();

const mayGo = (state: FileState, access: FileAccess): boolean =>
  !state.writing && (access === 'read' || state.readers === 0);

/** Grants the queue's head for as long as it may go (several reads at once). */
function grantNext(file: string, state: FileState): void {
  while (state.queue.length > 0 && mayGo(state, state.queue[0]!.access)) state.queue.shift()!.grant();
  if (!state.writing && state.readers === 0 && state.queue.length === 0) files.delete(file);
}

/**
 * Waits for `access` to `file` (a resolved path) and answers its release; throws `signal`'s reason when it aborts
 * first.
 */
export async function lockFile(file: string, access: FileAccess, signal?: AbortSignal): Promise<() => void> {
  signal?.throwIfAborted();
  let state = files.get(file);
  if (!state) {
    state = { readers: 0, writing: false, queue: [] };
    files.set(file, state);
  }
  const held = state;
  const take = () => {
    if (access === 'read') held.readers += 1;
    else held.writing = true;
  };
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    if (access === 'read') held.readers -= 1;
    else held.writing = false;
    grantNext(file, held);
  };
  if (held.queue.length === 0 && mayGo(held, access)) {
    take();
    return release;
  }
  await new Promise<void>((resolve, reject) => {
    const request: Request = {
      access,
      grant: () => {
        signal?.removeEventListener('abort', onAbort);
        take();
        resolve();
      },
    };
    const onAbort = () => {
      held.queue.splice(held.queue.indexOf(request), 1);
      // A write that stops waiting may have held back reads that can go now.
      grantNext(file, held);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    held.queue.push(request);
  });
  return release;
}
