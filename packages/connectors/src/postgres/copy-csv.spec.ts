import { columnsOf, encodeCsvBatch, encodeCsvValue } from './copy-csv.js';

describe('COPY CSV encoding', () => {
  it('tells NULL from the empty string and quotes every string', () => {
    expect(encodeCsvValue(null)).toBe('');
    expect(encodeCsvValue(undefined)).toBe('');
    expect(encodeCsvValue('')).toBe('""');
    expect(encodeCsvValue('say "hi",\nbye\\.')).toBe('"say ""hi"",\nbye\\."');
  });

  it('writes numbers, booleans, dates, bytes and JSON', () => {
    expect(encodeCsvValue(-1.5)).toBe('-1.5');
    expect(encodeCsvValue(Number.NaN)).toBe('NaN');
    expect(encodeCsvValue(Number.NEGATIVE_INFINITY)).toBe('-Infinity');
    expect(encodeCsvValue(12345678901234567890n)).toBe('12345678901234567890');
    expect(encodeCsvValue(false)).toBe('false');
    expect(encodeCsvValue(new Date('2024-01-02T03:04:05.006Z'))).toBe('"2024-01-02T03:04:05.006Z"');
    expect(encodeCsvValue(Buffer.from([0, 255]))).toBe('\\x00ff');
    expect(encodeCsvValue({ a: 'x"y', b: [1, null] })).toBe('"{""a"":""x\\""y"",""b"":[1,null]}"');
    expect(() => encodeCsvValue(new Date('nope'))).toThrow(/invalid Date/);
    expect(() => encodeCsvValue(() => 1)).toThrow(/type function/);
  });

  it('takes columns from the first batch and refuses unknown keys later', () => {
    const columns = columnsOf([{ a: 1 }, { b: 2, a: 3 }]);
    expect(columns).toEqual(['a', 'b']);
    expect(encodeCsvBatch([{ a: 1 }, { b: 'x' }], columns)).toBe('1,\n,"x"\n');
    expect(() => encodeCsvBatch([{ c: 1 }], columns)).toThrow(/column "c"/);
  });
});
