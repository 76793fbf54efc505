import { typedColumn, type FieldMeta } from './typed-columns.js';

// Field metadata as the server sends it (lengths and flags as MariaDB 10.11 reports them); MySQL 8's own JSON type
// cannot come from the MariaDB the integration tests use, so it is checked here.
function field(over: Partial<FieldMeta>): FieldMeta {
  return { name: 'c', decimals: 0, flags: 0, characterSet: 63, columnLength: 0, ...over };
}

describe('typedColumn', () => {
  it("takes MySQL's JSON type (labelled binary) as JSON text", () => {
    const column = typedColumn(field({ columnType: 245, characterSet: 63, columnLength: 4294967295 }));
    expect(column).toMatchObject({ type: 'JSON', source_type: 'json', source: 'text' });
    expect(column.encode(Buffer.from('{"ü": "x\\"y"}'))).toBe('"{""ü"": ""x\\""y""}"');
  });

  it('reads DECIMAL precision from the length, signed or unsigned', () => {
    expect(typedColumn(field({ columnType: 246, columnLength: 11, decimals: 2, flags: 32 })).type).toBe(
      'DECIMAL(10,2)',
    );
    expect(typedColumn(field({ columnType: 246, columnLength: 11, decimals: 0 })).type).toBe('DECIMAL(10,0)');
    expect(typedColumn(field({ columnType: 246, columnLength: 40, decimals: 38 })).type).toBe('DECIMAL(38,38)');
    expect(typedColumn(field({ columnType: 246, columnLength: 66, decimals: 0 }))).toMatchObject({
      type: 'DECIMAL(38,0)',
      source_type: 'decimal(65,0)',
    });
  });

  it('keeps TINYINT(1) UNSIGNED a number, and BOOL a boolean', () => {
    expect(typedColumn(field({ columnType: 1, columnLength: 1, flags: 32 })).type).toBe('UTINYINT');
    const bool = typedColumn(field({ columnType: 1, columnLength: 1 }));
    expect([bool.type, bool.encode('1'), bool.encode('0')]).toEqual(['BOOLEAN', 'true', 'false']);
  });

  it('refuses a result type it has no mapping for, naming the column', () => {
    expect(() => typedColumn(field({ name: 'v', columnType: 242 }))).toThrow(/column "v" has a MySQL type \(242\)/);
  });
});
