// Runs every bench (each *.mjs beside this file) in sequence, each in its own Node process, streams its
// output, and ends with a summary table built from each bench's final BENCH_RESULT JSON line.
//
//   node run-all.mjs            every bench
//   node run-all.mjs dag        only benches whose file name contains "dag"
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { RESULT_PREFIX } from './lib/report.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const benches = readdirSync(HERE)
  .filter((f) => f.endsWith('.mjs') && f !== 'run-all.mjs' && !f.startsWith('.'))
  .filter((f) => filters.length === 0 || filters.some((word) => f.includes(word)))
  .sort();
if (benches.length === 0) throw new Error(`no bench file matches ${filters.join(', ')}`);

/** Runs one bench file; resolves with its exit code, duration and parsed result line (if it printed one). */
function runBench(file) {
  const started = Date.now();
  const child = spawn(process.execPath, [join(HERE, file)], { cwd: HERE, stdio: ['ignore', 'pipe', 'inherit'] });
  let result;
  createInterface({ input: child.stdout }).on('line', (line) => {
    console.log(`  ${line}`);
    if (line.startsWith(RESULT_PREFIX)) result = JSON.parse(line.slice(RESULT_PREFIX.length));
  });
  return new Promise((ok) => {
    child.on('close', (code, signal) =>
      ok({ file, code: code ?? signal, seconds: (Date.now() - started) / 1000, result }),
    );
  });
}

const runs = [];
for (const file of benches) {
  console.log(`\n=== ${file}`);
  runs.push(await runBench(file));
}

const rows = runs.map(({ file, code, seconds, result }) => {
  const ok = code === 0 && result !== undefined;
  const h = result?.headline ?? {};
  return [
    file,
    ok ? 'ok' : `FAILED (${code})`,
    h.subject ?? '-',
    h.baseline ?? '-',
    h.ratio ?? '-',
    `${seconds.toFixed(1)} s`,
  ];
});
const header = ['bench', 'status', 'figure', 'baseline', 'ratio', 'took'];
const widths = header.map((title, i) => Math.max(title.length, ...rows.map((r) => r[i].length)));
const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join(' | ');
console.log(`\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}`);
for (const row of rows) console.log(line(row));
console.log(
  `${RESULT_PREFIX}${JSON.stringify({ bench: 'all', results: runs.map((r) => r.result ?? { bench: r.file, failed: true }) })}`,
);

if (runs.some((r) => r.code !== 0 || r.result === undefined)) process.exitCode = 1;
