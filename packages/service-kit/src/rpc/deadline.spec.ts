import { AppError } from '@conduit/contracts';
import { COMMIT_MARGIN_MS, DeadlinePassedError, assertBeforeDeadline } from './deadline.js';

describe('assertBeforeDeadline', () => {
  const now = 1_800_000_000_000;

  it('lets work commit while the caller still waits, and without a deadline', () => {
    expect(() => assertBeforeDeadline({ deadline: now + COMMIT_MARGIN_MS + 1 }, now)).not.toThrow();
    expect(() => assertBeforeDeadline({}, now)).not.toThrow();
  });

  it('refuses once the deadline is within the commit margin or past, as a 503 naming a service', () => {
    for (const deadline of [now + COMMIT_MARGIN_MS, now, now - 5_000]) {
      let thrown: unknown;
      try {
        assertBeforeDeadline({ deadline }, now);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(DeadlinePassedError);
      expect((thrown as AppError).toDomainError()).toMatchObject({
        code: 'service_unavailable',
        dependency: 'service',
      });
    }
  });
});
