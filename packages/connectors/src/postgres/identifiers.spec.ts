import { parseTableName, qualifiedTable } from './identifiers.js';

describe('table names', () => {
  it('takes the default schema for a bare name and splits schema.table', () => {
    expect(parseTableName('orders', 'raw')).toEqual({ schema: 'raw', table: 'orders' });
    expect(parseTableName('dw.orders', 'raw')).toEqual({ schema: 'dw', table: 'orders' });
    expect(() => parseTableName('.orders', 'raw')).toThrow(/invalid table name/);
  });

  it('quotes both parts, doubling embedded quotes', () => {
    expect(qualifiedTable('Orders "2024"; drop', 'my schema')).toBe('"my schema"."Orders ""2024""; drop"');
  });
});
