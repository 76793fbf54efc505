/**
 * A fixture the suite makes before its tests and disposes of after them, handed out at once so the module can name
 * it: its fields are filled in beforeAll, so read them in hooks and tests, not at module level. For plain-object
 * fixtures (their methods closures, as the sandboxes' and the test workspace's are).
 */
export function suiteFixture<T extends object>(create: () => Promise<T>, dispose: (fixture: T) => Promise<void>): T {
  const fixture = {} as T;
  let made = false;
  beforeAll(async () => {
    Object.assign(fixture, await create());
    made = true;
  });
  // A failed create leaves nothing to dispose of (its own error is the one to see).
  afterAll(async () => {
    if (made) await dispose(fixture);
  });
  return fixture;
}
