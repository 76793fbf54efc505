import { describe, expect, it } from '@jest/globals';
import { LineBatch, type LineSink } from './line-batch.js';

function recordingSink(): LineSink & { writes: string[]; calls: string[] } {
  const writes: string[] = [];
  const calls: string[] = [];
  return {
    writes,
    calls,
    write: (text: string) => writes.push(text),
    flush: (cb?: (err?: Error) => void) => {
      calls.push('flush');
      cb?.();
    },
    flushSync: () => void calls.push('flushSync'),
  };
}

describe('LineBatch', () => {
  it('holds lines below the threshold and writes them as one string once it is reached', () => {
    const sink = recordingSink();
    const batch = new LineBatch(sink, 10);
    batch.write('abcd\n');
    batch.write('éfg\n');
    expect(sink.writes).toEqual([]);
    batch.write('hi\n');
    expect(sink.writes).toEqual(['abcd\néfg\nhi\n']);
    batch.write('next\n');
    expect(sink.writes).toEqual(['abcd\néfg\nhi\n']);
  });

  it('flush writes what it holds and hands the callback to the sink', () => {
    const sink = recordingSink();
    const batch = new LineBatch(sink, 4096);
    batch.write('one\n');
    let called = false;
    batch.flush(() => (called = true));
    expect(sink.writes).toEqual(['one\n']);
    expect(called).toBe(true);
    batch.flush();
    expect(sink.writes).toEqual(['one\n']);
  });

  it('flushSync writes what it holds before the sink flushes', () => {
    const sink = recordingSink();
    const batch = new LineBatch(sink, 4096);
    batch.write('fatal line\n');
    batch.flushSync();
    expect(sink.writes).toEqual(['fatal line\n']);
    expect(sink.calls).toEqual(['flushSync']);
  });
});
