import { parseSince, metricsQuerySchema, parseQueryOrThrow, AppError } from './index.js';

describe('since', () => {
  it.each([
    ['1s', 1],
    ['24h', 86_400],
    ['90d', 90 * 86_400],
    ['12w', 12 * 604_800],
  ])('%s is %i seconds', (value, seconds) => expect(parseSince(value)).toBe(seconds));

  it.each(['0h', '1y', '-5m', '5', 'h', '10000000d', '91d', '13w', ' 1h', '1H', '01h'])('refuses %j', (value) =>
    expect(parseSince(value)).toBeUndefined(),
  );

  it('defaults to 24h and answers a 400 naming the parameter', () => {
    expect(parseQueryOrThrow(metricsQuerySchema, {})).toEqual({ since: '24h' });
    expect(() => parseQueryOrThrow(metricsQuerySchema, { since: '1y' })).toThrow(AppError);
    try {
      parseQueryOrThrow(metricsQuerySchema, { since: '1y' });
    } catch (err) {
      expect((err as AppError).code).toBe('invalid_parameter');
      expect((err as AppError).errors?.[0]?.path).toBe('since');
    }
  });
});
