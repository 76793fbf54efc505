// A run's one memory limit and what follows from it: DuckDB's pool is what is left after what DuckDB and the streams
// hold outside it; threads and CSV buffers follow the pool.
import { DEFAULT_RUN_MEMORY_LIMIT, parseSize, runMemory } from './run-memory.js';

const MiB = 1024 * 1024;

describe('runMemory', () => {
  it('derives the default, 88 MiB, into a 40 MiB DuckDB pool, 1 thread, 5 MiB rows in 10 MiB CSV buffers', () => {
    expect(runMemory(parseSize(DEFAULT_RUN_MEMORY_LIMIT)!, 8)).toEqual({
      limitBytes: 88 * MiB,
      duckdb: {
        memory_limit: '40MiB',
        threads: '1',
        allocator_flush_threshold: '5MiB',
        allocator_bulk_deallocation_flush_threshold: '10MiB',
      },
      buffers: {
        csvMaxLineBytes: 5 * MiB,
        csvBufferBytes: 10 * MiB,
        streamChunkBytes: 320 * 1024,
        scratchLimitBytes: 8 * 1024 * MiB,
        jsonPageMaxBytes: Math.floor((88 * MiB) / 16),
      },
      spillLimitBytes: 8 * 1024 * MiB,
    });
    expect(runMemory(256 * MiB, 8)).toMatchObject({
      duckdb: { memory_limit: '176MiB', threads: '3' },
      buffers: { csvMaxLineBytes: 7 * MiB },
    });
    // The run's scratch limit (RUN_SCRATCH_LIMIT) travels to the drivers with the buffers.
    expect(runMemory(256 * MiB, 8, 512 * MiB).buffers.scratchLimitBytes).toBe(512 * MiB);
    // So does its spill limit (RUN_SPILL_LIMIT), to DuckDB's max_temp_directory_size.
    expect(runMemory(256 * MiB, 8, 512 * MiB, 1536 * MiB).spillLimitBytes).toBe(1536 * MiB);
  });

  it('keeps DuckDB pool, buffers and threads inside the limit at its smallest and caps them at its largest', () => {
    for (const limit of [88 * MiB, 100 * MiB, 143 * MiB, 144 * MiB, 256 * MiB, 1024 * MiB, 64 * 1024 * MiB]) {
      const memory = runMemory(limit, 4);
      const pool = parseSize(memory.duckdb.memory_limit)!;
      const threads = Number(memory.duckdb.threads);
      // What DuckDB and the streams hold outside the pool fits beside it; each thread's JSON buffer (32 MiB) fits in it.
      expect(pool + (32 + 16 * threads) * MiB).toBeLessThanOrEqual(limit);
      expect(pool).toBeGreaterThanOrEqual(40 * MiB * threads);
      // Every thread's two CSV buffers fit DuckDB's pool with room left for the table they fill.
      expect(2 * threads * memory.buffers.csvBufferBytes).toBeLessThanOrEqual(pool / 2);
      expect(memory.buffers.csvBufferBytes).toBeGreaterThan(memory.buffers.csvMaxLineBytes);
      expect(memory.buffers.csvMaxLineBytes).toBeLessThanOrEqual(16 * MiB);
      expect(memory.buffers.streamChunkBytes).toBeGreaterThanOrEqual(64 * 1024);
      expect(memory.buffers.streamChunkBytes).toBeLessThanOrEqual(MiB);
      expect(threads).toBeGreaterThanOrEqual(1);
      expect(threads).toBeLessThanOrEqual(4);
    }
    expect(runMemory(88 * MiB, 4).duckdb.threads).toBe('1');
    expect(runMemory(8 * 1024 * MiB, 2).duckdb.threads).toBe('2');
  });

  it('refuses a limit under 88 MiB', () => {
    expect(() => runMemory(87 * MiB)).toThrow(RangeError);
    expect(() => runMemory(88 * MiB, 1, MiB, 0)).toThrow(/spill limit/);
  });
});

describe('parseSize', () => {
  it.each([
    ['96MiB', 96 * MiB],
    ['256MB', 256_000_000],
    ['2 GiB', 2 * 1024 * MiB],
    ['1.5GB', 1_500_000_000],
    ['512kib', 512 * 1024],
  ])('reads %s', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });

  it.each(['lots', '12', 'MiB', '-3MB', '1e3MB', '5 parsecs'])('refuses %s', (text) => {
    expect(parseSize(text)).toBeUndefined();
  });
});
