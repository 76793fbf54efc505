import { DEFAULT_NODE_TIMEOUT_S, policyOf } from './attempts.js';

describe('policyOf', () => {
  it("takes the node's timeout_seconds and retries", () => {
    expect(policyOf({ timeout_seconds: 1.5, retries: 2 }, 200)).toEqual({
      timeoutMs: 1500,
      retries: 2,
      backoffBaseMs: 200,
    });
  });

  it('gives a node without timeout_seconds the longest one a node may set, a day, so no run runs for ever', () => {
    expect(DEFAULT_NODE_TIMEOUT_S).toBe(86_400);
    expect(policyOf({}, 200).timeoutMs).toBe(86_400_000);
    expect(policyOf({ timeout_seconds: 'soon' }, 200).timeoutMs).toBe(86_400_000);
  });
});
