import { TenantSlots } from './tenant-slots.js';

describe('TenantSlots', () => {
  it('gives each tenant at most its slots, apart from every other tenant, and takes each back once', () => {
    const slots = new TenantSlots(2);
    const a1 = slots.take('a');
    const a2 = slots.take('a');
    expect(a1 && a2).toBeDefined();
    expect(slots.take('a')).toBeUndefined();
    expect(slots.take('b')).toBeDefined();
    a1!();
    a1!();
    expect(slots.inUse('a')).toBe(1);
    expect(slots.take('a')).toBeDefined();
    expect(slots.take('a')).toBeUndefined();
    // Past its share where the caller lends it: counted all the same.
    const lent = slots.take('a', true);
    expect(slots.inUse('a')).toBe(3);
    lent!();
    expect(slots.inUse('a')).toBe(2);
  });

  it('lends a tenant past its share only while more than a share of the pool stays free', () => {
    const slots = new TenantSlots(1);
    // A pool of 3: a tenant holds its one slot, borrows a second, then the last stays for another tenant.
    const taken = [slots.takeOrBorrow('a', 3), slots.takeOrBorrow('a', 3)];
    expect(taken.every(Boolean)).toBe(true);
    expect(slots.takeOrBorrow('a', 3)).toBeUndefined();
    const other = slots.takeOrBorrow('b', 3);
    expect(other).toBeDefined();
    taken[1]!();
    expect(slots.lends(3)).toBe(false);
    other!();
    expect(slots.takeOrBorrow('a', 3)).toBeDefined();
  });
});
