// `--perf` for runs-cpu.mjs: where the machine's CPU went during the burst, by process and by layer, from Linux
// `perf record -a` (every thread of every process, native code included: DuckDB's work on libuv's threads, the
// PostgreSQL backends, Redis and the kernel's part of each, which the services' own --profile cannot see).
// Needs `perf` and the right to sample the whole machine (root, or kernel.perf_event_paranoid <= 0). The services
// start with V8's --perf-basic-prof-only-functions (a /tmp/perf-<pid>.map of its compiled JavaScript functions), so
// perf names the JavaScript that runs and each service's top functions are printed with their share of its CPU.
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
/** Functions printed per service, by samples. */
const TOP_FUNCTIONS = Number(process.env.BENCH_PERF_TOP ?? 12);

/**
 * What part of V8 (or of the compiled JavaScript) a symbol of a node process is. A builtin is code that runs (those
 * Sparkplug's code calls included), never a compiler, but for lazy compilation; JSON's parser is the runtime's.
 */
function v8PartOf(sym, dso) {
  if (dso.startsWith('[JIT]')) return 'JS';
  if (sym.startsWith('Builtins_')) {
    if (sym.startsWith('Builtins_CompileLazy')) return 'compilers';
    if (/IC(_|$)|IC_|ICTrampoline/.test(sym)) return 'ICs';
    if (/Interpreter|Handler$|BaselineOutOfLine/.test(sym)) return 'interpreter';
    return 'builtins';
  }
  if (/Scavenge|MarkCompact|Sweep|Heap::|heap::|Marking|Evacuat|GC|Minor|CppHeap|cppgc/.test(sym)) return 'GC';
  if (/Json/.test(sym)) return 'runtime';
  if (/compiler::|maglev|Maglev|baseline::|Compiler|Compile|Parser|Scanner|Zone|Bytecode/.test(sym)) return 'compilers';
  if (/IC::|FeedbackVector|FeedbackNexus/.test(sym)) return 'ICs';
  return 'runtime';
}
const V8_PARTS = ['JS', 'builtins', 'ICs', 'interpreter', 'runtime', 'compilers', 'GC'];

/** A function's name as perf gives it, shortened: V8's `JS:*name file:line` and paths up to their package. */
const shortSymbol = (sym) =>
  sym
    .replace(/^(LazyCompile|Function|JS):[*~^+]?/, '')
    .replace(/\S*node_modules\//g, '')
    .replace(/\S*\/(apps|packages)\//g, '$1/')
    .replace(/^file:\/\//, '');

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
  if (!argv.includes('--perf')) return { enabled: false, env: {}, start() {}, async stop() {}, print() {} };
  const check = spawnSync('perf', ['--version'], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error('--perf needs Linux perf on the PATH (e.g. apt install linux-perf)');
  const dir = mkdtempSync(join(tmpdir(), 'conduit-bench-perf-'));
  const file = join(dir, 'perf.data');
  let recorder, table, functions, v8Parts;
  return {
    enabled: true,
    /** Environment for startBenchStack: V8 writes the names perf needs for JavaScript frames. */
    env: { NODE_OPTIONS: '--perf-basic-prof-only-functions' },
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
        [
          'report',
          '-i',
          file,
          '--stdio',
          '--sort',
          'pid,dso,sym',
          '-g',
          'none',
          '-F',
          'sample,pid,dso,sym',
          '-t',
          '\t',
        ],
        { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
      );
      if (report.status !== 0) throw new Error(`perf report failed: ${report.stderr.slice(-500)}`);
      table = {};
      functions = {};
      v8Parts = {};
      for (const line of report.stdout.split('\n')) {
        if (line.startsWith('#') || line.trim() === '') continue;
        const [samples, thread, dso, sym] = line.split('\t').map((s) => s.trim());
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
        if (group === 'other processes') continue;
        const cleanSym = (sym ?? '').replace(/^\[[.k]\]\s*/, '');
        // A node process's samples by part of V8: its compiled JavaScript apart from the engine's own work.
        const where = layer === LAYERS[0] ? v8PartOf(cleanSym, dso) : layer.split(/[ /]/)[0];
        const name = `${shortSymbol(cleanSym)}  [${where}]`;
        const byName = (functions[group] ??= new Map());
        byName.set(name, (byName.get(name) ?? 0) + Number(samples));
        if (layer !== LAYERS[0]) continue;
        const parts = (v8Parts[group] ??= {});
        parts[where] = (parts[where] ?? 0) + Number(samples);
      }
      for (const pids of Object.values(groups)) for (const pid of pids) rmSync(`/tmp/perf-${pid}.map`, { force: true });
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
      console.log(
        `\n  by process: node/V8 by part, then the top ${TOP_FUNCTIONS} functions (ms of CPU per run; [part or layer]):`,
      );
      for (const [group] of rows) {
        const byName = functions[group];
        if (!byName) continue;
        const parts = v8Parts[group];
        const split = parts && V8_PARTS.map((part) => `${part} ${ms(parts[part] ?? 0).toFixed(2)}`).join(', ');
        console.log(`  ${group}${split ? `: ${split}` : ''}`);
        for (const [name, samples] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, TOP_FUNCTIONS))
          console.log(`    ${ms(samples).toFixed(2).padStart(6)}  ${name.slice(0, 110)}`);
      }
      const rounded = (row) =>
        Object.fromEntries(Object.entries(row).map(([l, v]) => [l, Math.round(ms(v) * 100) / 100]));
      return Object.fromEntries([...rows, ['all', totals]].map(([g, row]) => [g, rounded(row)]));
    },
  };
}
