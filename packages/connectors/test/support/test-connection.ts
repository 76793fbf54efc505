/** What Test Connection answers, as the drivers' tests check it. */
import type { TestResult } from '../../src/index.js';

/** The checks in the order they ran, each `name:ok` or `name:failed`. */
export const checkNames = (result: TestResult): string[] =>
  result.checks.map((c) => `${c.name}:${c.ok ? 'ok' : 'failed'}`);

/** Asserts that Test Connection passed, having run exactly `checks`, in this order. */
export function expectPassed(result: TestResult, checks: string[]): void {
  expect(result).toMatchObject({ ok: true, error_class: null });
  expect(checkNames(result)).toEqual(checks.map((name) => `${name}:ok`));
}
