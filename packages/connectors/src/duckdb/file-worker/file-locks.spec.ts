import { lockFile } from './file-locks.js';

/** Whether `promise` has settled after the current turn's microtasks. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('lockFile', () => {
  test('reads share a file, a write waits for them and holds back the reads asked after it', async () => {
    const firstRead = await lockFile('/f', 'read');
    const secondRead = await lockFile('/f', 'read');
    const write = lockFile('/f', 'write');
    const lateRead = lockFile('/f', 'read');
    expect(await settled(write)).toBe(false);
    firstRead();
    secondRead();
    const releaseWrite = await write;
    expect(await settled(lateRead)).toBe(false);
    releaseWrite();
    (await lateRead)();
  });

  test('another file does not wait, and a release twice frees once', async () => {
    const write = await lockFile('/a', 'write');
    const other = await lockFile('/b', 'write');
    write();
    write();
    const next = await lockFile('/a', 'write');
    const after = lockFile('/a', 'read');
    expect(await settled(after)).toBe(false);
    next();
    (await after)();
    other();
  });

  test('a wait that aborts leaves the queue, and the reads behind it go', async () => {
    const read = await lockFile('/c', 'read');
    const controller = new AbortController();
    const write = lockFile('/c', 'write', controller.signal);
    const laterRead = lockFile('/c', 'read');
    expect(await settled(laterRead)).toBe(false);
    controller.abort(new Error('stopped'));
    await expect(write).rejects.toThrow('stopped');
    (await laterRead)();
    read();
    (await lockFile('/c', 'write'))();
  });
});
