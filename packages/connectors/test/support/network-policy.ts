/** Operator network settings for a suite (the listener that records connections is the test kit's). */

/** Sets environment variables for one test (or suite); the returned function puts the previous values back. */
export function setEnv(vars: Record<string, string | undefined>): () => void {
  const previous = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  return () => apply(previous);
}

/** The suite's servers run on this machine: allow private networks for its tests, as an operator would. */
export function allowPrivateNetworks(): void {
  let restore: () => void = () => undefined;
  beforeAll(() => {
    restore = setEnv({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' });
  });
  afterAll(() => restore());
}
