// `--profile` for the stack benches: every service of the stack starts with the CPU profiler preload
// (cpu-profiler-preload.mjs); start() begins sampling once the measured part begins (boot and warm-up stay out);
// after stack.stop() (SIGTERM writes the profiles) print() shows where each service spent its CPU.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printProfiles } from './cpu-profile-summary.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');

/** The profiling of a stack bench when `--profile` is among the arguments; otherwise one that does nothing. */
export function stackProfiles(argv = process.argv) {
  const dir = argv.includes('--profile') ? mkdtempSync(join(tmpdir(), 'conduit-bench-prof-')) : undefined;
  return {
    enabled: dir !== undefined,
    /** Environment for startBenchStack: the preload and where it writes. */
    env: dir ? { NODE_OPTIONS: `--import=${join(HERE, 'cpu-profiler-preload.mjs')}`, BENCH_PROFILE_DIR: dir } : {},
    /** Starts sampling in every service (SIGWINCH, see the preload). */
    start(stack) {
      if (dir) for (const p of stack.processes) process.kill(p.child.pid, 'SIGWINCH');
    },
    print() {
      if (dir) printProfiles(dir, ROOT);
    },
  };
}
