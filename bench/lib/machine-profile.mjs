// `--perf` for runs-cpu.mjs: where the machine's CPU went during the burst, by process and by layer, from Linux
// `perf record -a` (every thread of every process, native code included: DuckDB's work on libuv's threads, the
// PostgreSQL backends, Redis and the kernel's part of each, which the services' own --profile cannot see).
// Needs `perf` and the right to sample the whole machine (root, or kernel.perf_event_paranoid <= 0).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HZ = 499; // samples per second per CPU: each sample stands for ~2 ms of one CPU

/** The layer a shared object's samples belong to. */
function layerOf(dso) {
  if (dso === '[kernel.kallsyms]' || dso.startsWith('[kernel')) return 'kernel';
  if (dso.startsWith('[JIT]') || dso === 'node' || dso === '[vdso]') return 'node/V8 (JS, GC)';
  if (dso.includes('duckdb')) return 'DuckDB';
  // redis-server's own code shows as redis-check-rdb (the same binary).
  if (dso === 'postgres' || dso.startsWith('redis')) return 'server';
  if (/^lib(c|m|stdc\+\+|gcc_s|jemalloc|pthread)[.-]/.test(dso) || dso.startsWith('ld-linux')) return 'libc/malloc';
  return 'other';
}
const LAYERS = ['node/V8 (JS, GC)', 'DuckDB', 'server', 'libc/malloc', 'kernel', 'other'];

function tgidOf(tid) {
  try {
    return Number(/^Tgid:\s*(\d+)/m.exec(readFileSync(`/proc/${tid}/status`, 'utf8'))[1]);
  } catch {
    return undefined;
  }
}

/** Every thread id of `pid`. */
function threadsOf(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [];
  }
}

/** The machine profile when `--perf` is among the arguments; otherwise one that does nothing. */
export function machineProfile(argv = process.argv) {
  if (!argv.includes('--perf')) return { enabled: false, start() {}, async stop() {}, print() {} };
  const check = spawnSync('perf', ['--version'], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error('--perf needs Linux perf on the PATH (e.g. apt install linux-perf)');
  const dir = mkdtempSync(join(tmpdir(), 'conduit-bench-perf-'));
  const file = join(dir, 'perf.data');
  let recorder, table;
  return {
    enabled: true,
    start() {
      recorder = spawn('perf', ['record', '-F', String(HZ), '-a', '-o', file, '--quiet'], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      recorder.stderr.on('data', (d) => (stderr += d));
      recorder.failed = new Promise((resolve) => recorder.on('exit', (code) => resolve({ code, stderr })));
    },
    /** Ends the recording while `groups` ({ label: [pid] }, the stack's services) are still alive to be told apart. */
    async stop(groups) {
      recorder.kill('SIGINT');
      const { code, stderr } = await recorder.failed;
      if (code !== 0 && code !== null) throw new Error(`perf record failed (${code}): ${stderr.slice(-500)}`);
      const groupOfTgid = new Map();
      for (const [label, pids] of Object.entries(groups)) for (const pid of pids) groupOfTgid.set(pid, label);
      const groupOfTid = new Map();
      for (const [tgid, label] of groupOfTgid) for (const tid of threadsOf(tgid)) groupOfTid.set(tid, label);
      const report = spawnSync(
        'perf',
        ['report', '-i', file, '--stdio', '--sort', 'pid,dso', '-g', 'none', '-F', 'sample,pid,dso', '-t', '\t'],
        { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      );
      if (report.status !== 0) throw new Error(`perf report failed: ${report.stderr.slice(-500)}`);
      table = {};
      for (const line of report.stdout.split('\n')) {
        if (line.startsWith('#') || line.trim() === '') continue;
        const [samples, thread, dso] = line.split('\t').map((s) => s.trim());
        const match = /^(\d+):(.*)$/.exec(thread ?? '');
        if (!match || !dso) continue;
        const [tid, comm] = [Number(match[1]), match[2]];
        if (tid === 0) continue; // idle
        const group =
          groupOfTid.get(tid) ??
          groupOfTgid.get(tgidOf(tid)) ??
          (comm === 'postgres' ? 'postgres' : comm.startsWith('redis') ? 'redis' : 'other processes');
        const row = (table[group] ??= {});
        const layer = layerOf(dso);
        row[layer] = (row[layer] ?? 0) + Number(samples);
      }
      rmSync(dir, { recursive: true, force: true });
    },
    /** ms of CPU per run by process and layer (perf's samples: compare shares with the /proc figures above). */
    print(runs) {
      if (!table) return;
      const ms = (samples) => (samples * 1000) / HZ / runs;
      const cell = (v) => (v ? ms(v).toFixed(2) : '-').padStart(9);
      console.log(
        `\nmachine profile (perf record -a, ${HZ} Hz): ms of CPU per run by process and layer (the stack's other processes and the machine's other work included)`,
      );
      console.log(`  ${'process'.padEnd(20)}${LAYERS.map((l) => l.slice(0, 8).padStart(9)).join('')}     total`);
      const totals = {};
      const rows = Object.entries(table).sort(
        ([, a], [, b]) => Object.values(b).reduce((s, v) => s + v, 0) - Object.values(a).reduce((s, v) => s + v, 0),
      );
      for (const [group, row] of rows) {
        for (const l of LAYERS) totals[l] = (totals[l] ?? 0) + (row[l] ?? 0);
        const sum = Object.values(row).reduce((s, v) => s + v, 0);
        console.log(`  ${group.padEnd(20)}${LAYERS.map((l) => cell(row[l])).join('')} ${cell(sum)}`);
      }
      const all = Object.values(totals).reduce((s, v) => s + v, 0);
      console.log(`  ${'all'.padEnd(20)}${LAYERS.map((l) => cell(totals[l])).join('')} ${cell(all)}`);
      console.log(`  layers: ${LAYERS.join(', ')} (server: the postgres or redis-server binary itself)`);
      const rounded = (row) =>
        Object.fromEntries(Object.entries(row).map(([l, v]) => [l, Math.round(ms(v) * 100) / 100]));
      return Object.fromEntries([...rows, ['all', totals]].map(([g, row]) => [g, rounded(row)]));
    },
  };
}
