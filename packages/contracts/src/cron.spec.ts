import { checkCron, cronNeverFires, isTimeZone, jobCreateSchema, parseOrThrow, AppError } from './index.js';

describe('checkCron', () => {
  it.each([
    '* * * * *',
    '*/5 0-6,22-23 1,15 JAN-MAR mon-fri',
    '0 12 * * 7',
    '30 2 L * *'.replace('L', '1'),
    '0 0 1 */3 SUN',
  ])('accepts %s', (expr) => expect(checkCron(expr)).toBeUndefined());

  it.each([
    ['* * * * * *', 'expected 5 fields (minute hour day-of-month month day-of-week), got 6'],
    ['60 * * * *', 'minute 60 is out of range 0-59'],
    ['*/0 * * * *', 'step "0" of the minute must be a number from 1 to 59'],
    ['', 'expected 5 fields (minute hour day-of-month month day-of-week), got 0'],
    ['* 24 * * *', 'hour 24 is out of range 0-23'],
    ['* * 0 * *', 'day of month 0 is out of range 1-31'],
    ['* * * 13 *', 'month 13 is out of range 1-12'],
    ['* * * * 8', 'day of week 8 is out of range 0-7'],
    ['* * * FOO *', '"FOO" is not a valid month'],
    ['5-1 * * * *', 'minute range "5-1" runs backwards'],
    // cron-parser (the scheduler's) refuses a value listed twice: the job would never fire.
    ['0 0 1,1 * *', 'day of month "1,1" lists 1 twice'],
    ['1-5,3 * * * *', 'minute "1-5,3" lists 3 twice'],
    ['*/5,10 * * * *', 'minute "*/5,10" lists 10 twice'],
    ['0 0 * * 0,7', 'day of week "0,7" lists 0 twice'],
    ['0 0 * * SUN,0', 'day of week "SUN,0" lists 0 twice'],
    ['0 0 * JAN,1 *', 'month "JAN,1" lists 1 twice'],
  ])('refuses %j: %s', (expr, message) => expect(checkCron(expr)).toBe(message));

  // No date matches: decided on the months of a leap year (cron-parser would search for years and find nothing).
  it.each([
    [
      '* * 31 4,6,9,11 *',
      'day of month 31 never comes in April, June, September or November: the schedule never fires',
    ],
    ['0 0 30 2 *', 'day of month 30 never comes in February: the schedule never fires'],
    ['0 0 30,31 FEB *', 'day of month 30,31 never comes in February: the schedule never fires'],
    ['0 0 31 2-6/2 *', 'day of month 31 never comes in February, April or June: the schedule never fires'],
    // `30/5` is 30 to the end of the month by 5 (cron-parser's reading): 30 only.
    ['0 0 30/5 2 *', 'day of month 30/5 never comes in February: the schedule never fires'],
  ])('refuses %j, which never fires: %s', (expr, message) => expect(checkCron(expr)).toBe(message));

  it.each([
    '0 0 29 2 *', // every four years
    '0 0 30,29 2 *',
    '0 0 31 2/2 *', // August, October, December
    '0 0 31 4 1-5', // day of month or day of week: every weekday of April
    '0 0 30 2 */1',
    '0 0 */10 2 *', // 1, 11, 21
  ])('accepts %s, which fires', (expr) => expect(checkCron(expr)).toBeUndefined());

  it('tells a stored schedule that never fires, six fields (seconds) too, and nothing else', () => {
    expect(cronNeverFires('* * 31 4,6,9,11 *')).toBe(true);
    expect(cronNeverFires('*/3 0 0 30 2 *')).toBe(true);
    expect(cronNeverFires('0 0 29 2 *')).toBe(false);
    expect(cronNeverFires('0 0 31 2 MON')).toBe(false);
    expect(cronNeverFires('60 0 30 2 *')).toBe(false); // invalid, not "never"
    expect(cronNeverFires('0 0 30 2')).toBe(false);
  });
});

describe('job create schema', () => {
  it('names the field at fault with its code', () => {
    try {
      parseOrThrow(jobCreateSchema, {
        name: 'j',
        pipeline_id: 'pln_x',
        schedule: '* * * * * *',
        timezone: 'Mars/Olympus',
        parameters: [],
      });
      throw new Error('expected a validation error');
    } catch (err) {
      const errors = (err as AppError).errors ?? [];
      expect(errors.map((e) => [e.path, e.code])).toEqual([
        ['schedule', 'invalid_cron'],
        ['timezone', 'invalid_timezone'],
        ['parameters', 'invalid_type'],
      ]);
    }
  });

  it('defaults timezone, policy and parameters; null schedule means by hand', () => {
    expect(parseOrThrow(jobCreateSchema, { name: 'j', pipeline_id: 'pln_x', schedule: null })).toEqual({
      name: 'j',
      pipeline_id: 'pln_x',
      schedule: null,
      timezone: 'UTC',
      concurrency_policy: 'forbid',
      parameters: {},
    });
    expect(isTimeZone('Europe/Paris')).toBe(true);
    expect(isTimeZone('Nowhere/Else')).toBe(false);
  });
});
