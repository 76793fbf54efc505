import { kindOfValue, toColumnValue, widen } from './column-kinds.js';

describe('column kinds', () => {
  it('infers a DuckDB type from each JS value', () => {
    expect(kindOfValue(1)).toBe('BIGINT');
    expect(kindOfValue(1.5)).toBe('DOUBLE');
    expect(kindOfValue(2 ** 60)).toBe('DOUBLE');
    expect(kindOfValue(10n)).toBe('HUGEINT');
    expect(kindOfValue('x')).toBe('VARCHAR');
    expect(kindOfValue(true)).toBe('BOOLEAN');
    expect(kindOfValue(new Date())).toBe('TIMESTAMPTZ');
    expect(kindOfValue(Buffer.from('a'))).toBe('BLOB');
    expect(kindOfValue({ a: 1 })).toBe('JSON');
  });

  it('widens numbers among themselves and anything else mixed to text', () => {
    expect(widen('BIGINT', 'DOUBLE')).toBe('DOUBLE');
    expect(widen('DOUBLE', 'BIGINT')).toBe('DOUBLE');
    expect(widen('BIGINT', 'HUGEINT')).toBe('HUGEINT');
    expect(widen('BIGINT', 'VARCHAR')).toBe('VARCHAR');
    expect(widen('TIMESTAMPTZ', 'BOOLEAN')).toBe('VARCHAR');
    expect(widen('JSON', 'JSON')).toBe('JSON');
  });

  it('converts values into a widened column', () => {
    expect(toColumnValue(new Date('2026-01-02T03:04:05.006Z'), 'VARCHAR')).toBe('2026-01-02T03:04:05.006Z');
    expect(toColumnValue({ a: [1] }, 'VARCHAR')).toBe('{"a":[1]}');
    expect(toColumnValue(12, 'VARCHAR')).toBe('12');
    expect(toColumnValue('s', 'JSON')).toBe('"s"');
    expect(toColumnValue(3, 'HUGEINT')).toBe(3n);
    expect(toColumnValue(undefined, 'BIGINT')).toBeNull();
  });
});
