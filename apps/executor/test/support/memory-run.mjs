// One run of a DAG in a process of its own, so that its VmHWM (peak resident memory) is that run's alone: prints
// {"idle_kib", "peak_kib", "outcome"} as one JSON line. Runs the built engine (dist/): a child process cannot load
// the TypeScript sources the way jest does. Options arrive as JSON in argv[2]: { dag, connectors, dataDir, limitBytes }.
import { readFileSync } from 'node:fs';
import { executeRun, runMemory } from '../../dist/index.js';

const { dag, connectors, dataDir, limitBytes } = JSON.parse(process.argv[2]);

function memoryKib() {
  const status = readFileSync('/proc/self/status', 'utf8');
  const field = (name) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+)`, 'm'))[1]);
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

// Idle as an executor is before its first run: every module loaded, nothing run.
const idle = memoryKib().rss;
const outcome = await executeRun({
  runId: `run_memory_${process.pid}`,
  tenantId: 'tnt_memory_test',
  dag,
  connectors: new Map(connectors.map((c) => [c.id, c])),
  workspace: { dataDir, memory: runMemory(limitBytes) },
  signal: new AbortController().signal,
  log: { write: () => undefined },
});
process.stdout.write(`${JSON.stringify({ idle_kib: idle, peak_kib: memoryKib().hwm, outcome })}\n`);
