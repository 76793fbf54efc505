import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { dataLimitBytes, dataLimitOf, returnFreedAddressSpace } from './data-limit.js';

const MiB = 1024 * 1024;
const BUILT = fileURLToPath(new URL('../../dist/ops/data-limit.js', import.meta.url));

describe('returnFreedAddressSpace', () => {
  it("sets jemalloc's retain:false and an 8 MiB oversize threshold, added to an operator's options, theirs kept", () => {
    const unset: NodeJS.ProcessEnv = {};
    returnFreedAddressSpace(unset);
    expect(unset['DUCKDB_JE_MALLOC_CONF']).toBe('retain:false,oversize_threshold:8388608');
    const theirs: NodeJS.ProcessEnv = { DUCKDB_JE_MALLOC_CONF: 'narenas:2' };
    returnFreedAddressSpace(theirs);
    expect(theirs['DUCKDB_JE_MALLOC_CONF']).toBe('narenas:2,retain:false,oversize_threshold:8388608');
    const decided: NodeJS.ProcessEnv = { DUCKDB_JE_MALLOC_CONF: 'narenas:2,retain:true' };
    returnFreedAddressSpace(decided);
    expect(decided['DUCKDB_JE_MALLOC_CONF']).toBe('narenas:2,retain:true,oversize_threshold:8388608');
  });
});

describe('dataLimitBytes', () => {
  it("is the container's memory when known, plus the threads' stacks (mapped, not resident)", () => {
    const limit = dataLimitBytes({
      containerBytes: 2048 * MiB,
      concurrency: 8,
      runMemoryBytes: 88 * MiB,
      runThreads: 1,
      threadPoolSize: 12,
    });
    expect(limit).toBe((2048 + (12 + 8) * 8) * MiB);
  });

  it('else room for the executor and three times each slot memory, with its threads', () => {
    const defaults = { containerBytes: undefined, runThreads: 1, threadPoolSize: 12 };
    expect(dataLimitBytes({ ...defaults, concurrency: 8, runMemoryBytes: 88 * MiB })).toBe(
      (256 + 20 * 8 + 8 * (3 * 88 + 64)) * MiB,
    );
    expect(dataLimitBytes({ ...defaults, concurrency: 1, runMemoryBytes: 256 * MiB, runThreads: 2 })).toBe(
      (256 + 20 * 8 + 3 * 256 + 2 * 64) * MiB,
    );
  });
});

describe('dataLimitOf', () => {
  it("reads a process's soft limit, and undefined for an unlimited one or no process", async () => {
    const limited = spawn('/bin/sh', ['-c', 'ulimit -d 500000 && exec sleep 30'], { stdio: 'ignore' });
    const pid = limited.pid;
    if (pid === undefined) throw new Error('sh did not start');
    try {
      // The shell execs sleep once its limit is set: wait for the exec, not for a time.
      for (let i = 0; i < 200 && dataLimitOf(pid) === undefined; i++) await new Promise((r) => setTimeout(r, 10));
      expect(dataLimitOf(pid)).toBe(500000 * 1024);
    } finally {
      limited.kill('SIGKILL');
      await once(limited, 'exit');
    }
    expect(dataLimitOf(0x7fffffff)).toBeUndefined();
  });
});

describe('limitDataSize (in a process of its own: the limit cannot be taken back)', () => {
  const run = (path: string) =>
    promisify(execFile)(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { pino } from 'pino';
         const { limitDataSize, dataLimitOf } = await import(${JSON.stringify(BUILT)});
         limitDataSize(${300 * MiB}, pino({ base: null, timestamp: false }));
         console.log(JSON.stringify({ applied: dataLimitOf() ?? null }));`,
      ],
      { env: { PATH: path }, cwd: fileURLToPath(new URL('../..', import.meta.url)) },
    );

  beforeAll(() => {
    if (!existsSync(BUILT))
      throw new Error('dist/ops/data-limit.js is missing: run `npm run build -w @conduit/executor`');
  });

  it("sets the process's limit", async () => {
    const { stdout } = await run(process.env['PATH'] ?? '');
    expect(stdout).toContain('"msg":"data-size limit set"');
    expect(stdout).toContain(`{"applied":${300 * MiB}}`);
  });

  it('runs on without it, and says so, where prlimit is missing', async () => {
    const { stdout } = await run('/nonexistent');
    expect(stdout).toContain("could not set the executor's data-size limit");
    expect(stdout).toContain('{"applied":null}');
  });
});
