import { describe, expect, it } from '@jest/globals';
import { AppError, PARAMETERS_MAX_BYTES, jobCreateSchema, parseOrThrow, runTriggerSchema } from '@conduit/contracts';

/** The 422s of a job body are decided by the shared schema, before the scheduler sees the request. */
function fieldErrors(body: Record<string, unknown>): { path: string; code: string }[] {
  try {
    parseOrThrow(jobCreateSchema, { name: 'nightly', pipeline_id: 'pln_x', ...body });
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('validation_failed');
    return ((err as AppError).errors ?? []).map(({ path, code }) => ({ path, code }));
  }
  throw new Error('expected the body to be refused');
}

describe('job body validation', () => {
  it.each([
    ['six fields', '0 0 * * * *'],
    ['minute 60', '60 * * * *'],
    ['a zero step', '*/0 * * * *'],
    ['an empty schedule', ''],
    ['blanks only', '   '],
    ['a day of month that never comes (31 April, June, September, November)', '* * 31 4,6,9,11 *'],
    ['30 February', '0 0 30 2 *'],
  ])('refuses a schedule with %s as invalid_cron', (_what, schedule) => {
    expect(fieldErrors({ schedule })).toEqual([{ path: 'schedule', code: 'invalid_cron' }]);
  });

  it('refuses an unknown time zone and parameters that are not an object', () => {
    expect(fieldErrors({ timezone: 'Mars/Olympus' })).toEqual([{ path: 'timezone', code: 'invalid_timezone' }]);
    expect(fieldErrors({ parameters: [1, 2] })).toEqual([{ path: 'parameters', code: 'invalid_type' }]);
    expect(fieldErrors({ parameters: 'x' })).toEqual([{ path: 'parameters', code: 'invalid_type' }]);
  });

  it('lists every field at fault at once, unknown fields included', () => {
    const errors = fieldErrors({ schedule: '* * *', timezone: 'Nowhere/City', colour: 'red' });
    expect(errors.map((e) => e.path).sort()).toEqual(['colour', 'schedule', 'timezone']);
  });

  it('accepts null and five-field schedules, with defaults for the rest', () => {
    expect(parseOrThrow(jobCreateSchema, { name: 'a', pipeline_id: 'pln_x', schedule: null })).toMatchObject({
      timezone: 'UTC',
      concurrency_policy: 'forbid',
      parameters: {},
    });
    expect(
      parseOrThrow(jobCreateSchema, {
        name: 'a',
        pipeline_id: 'pln_x',
        schedule: '*/15 9-17 * JAN-MAR mon-fri',
        timezone: 'Europe/Paris',
      }).schedule,
    ).toBe('*/15 9-17 * JAN-MAR mon-fri');
  });

  it('takes parameters of at most 64 KiB as JSON text (UTF-8 bytes), on a job and on a trigger', () => {
    const sized = (bytes: number, char = 'x') => ({
      p: char.repeat((bytes - '{"p":""}'.length) / Buffer.byteLength(char)),
    });
    expect(
      parseOrThrow(jobCreateSchema, { name: 'a', pipeline_id: 'pln_x', parameters: sized(PARAMETERS_MAX_BYTES) }),
    ).toBeTruthy();
    expect(parseOrThrow(runTriggerSchema, { parameters: sized(PARAMETERS_MAX_BYTES) })).toBeTruthy();
    const tooLong = [{ path: 'parameters', code: 'too_long' }];
    expect(fieldErrors({ parameters: sized(PARAMETERS_MAX_BYTES + 1) })).toEqual(tooLong);
    // Two bytes a character: fewer characters than the bound, more bytes.
    expect(fieldErrors({ parameters: sized(PARAMETERS_MAX_BYTES + 2, 'é') })).toEqual(tooLong);
    try {
      parseOrThrow(runTriggerSchema, { parameters: sized(PARAMETERS_MAX_BYTES + 8) });
      throw new Error('expected the trigger to be refused');
    } catch (err) {
      expect((err as AppError).errors).toEqual([
        {
          path: 'parameters',
          code: 'too_long',
          message: `must be at most ${PARAMETERS_MAX_BYTES} bytes (64 KiB) as JSON text (got ${PARAMETERS_MAX_BYTES + 8})`,
        },
      ]);
    }
  });
});
