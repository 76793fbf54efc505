// validateDag on a realistic 500-node / ~1,000-edge DAG, against a baseline that walks the same data:
// JSON.parse(JSON.stringify(dag)). Both run in this process, in alternating rounds, so drift in CPU
// speed (turbo, a neighbour's load) hits both alike.
import { validateDag } from '@conduit/dag';
import { realisticDag, validationContext } from './lib/dag-fixture.mjs';
import { printResult, round, summarizeDurations } from './lib/report.mjs';

const ROUNDS = Number(process.env.BENCH_DAG_ROUNDS ?? 10);
const ROUND_MS = Number(process.env.BENCH_DAG_ROUND_MS ?? 250);
const WARMUP_MS = 1000;

const dag = realisticDag();
const subjects = {
  validateDag: () => validateDag(dag, validationContext).execution_order.length,
  json_round_trip: () => JSON.parse(JSON.stringify(dag)).nodes.length,
};

// Measure the happy path: a DAG with errors would take other branches.
const check = validateDag(dag, validationContext);
if (!check.valid || check.warnings.length > 0) {
  throw new Error(
    `the bench DAG must be valid and clean: ${JSON.stringify([...check.errors, ...check.warnings].slice(0, 3))}`,
  );
}

/** Calls fn back to back for ms milliseconds, appending each call's duration (ns) to into. */
function runFor(fn, ms, into) {
  let keep = 0; // consumed below, so the calls cannot be optimised away
  const end = process.hrtime.bigint() + BigInt(ms) * 1_000_000n;
  for (;;) {
    const t0 = process.hrtime.bigint();
    keep += fn();
    const t1 = process.hrtime.bigint();
    into?.push(Number(t1 - t0));
    if (t1 >= end) return keep;
  }
}

const samples = Object.fromEntries(Object.keys(subjects).map((name) => [name, []]));
let sink = 0;
for (const fn of Object.values(subjects)) sink += runFor(fn, WARMUP_MS);
for (let r = 0; r < ROUNDS; r++) {
  // Alternate which subject goes first, so neither always follows the other's garbage.
  const order = r % 2 === 0 ? Object.keys(subjects) : Object.keys(subjects).reverse();
  for (const name of order) sink += runFor(subjects[name], ROUND_MS, samples[name]);
}
if (sink === 0) throw new Error('the subjects returned nothing');

const validate = summarizeDurations(samples.validateDag);
const baseline = summarizeDurations(samples.json_round_trip);
const costRatio = round(validate.mean_us / baseline.mean_us, 2);

console.log(
  `DAG: ${dag.nodes.length} nodes, ${dag.edges.length} edges, ${check.execution_order.length} levels, ${JSON.stringify(dag).length} bytes as JSON`,
);
for (const [name, s] of [
  ['validateDag', validate],
  ['JSON.parse(JSON.stringify(dag)) (baseline)', baseline],
]) {
  console.log(
    `${name.padEnd(44)} ${String(s.ops_per_sec).padStart(10)} ops/s  mean ${s.mean_us} us  p99 ${s.p99_us} us  (${s.calls} calls)`,
  );
}
console.log(`ratio: one validateDag costs ${costRatio}x a JSON round trip of the same DAG (lower is better)`);

printResult('dag-validate', {
  nodes: dag.nodes.length,
  edges: dag.edges.length,
  validate,
  baseline: { name: 'json_round_trip', ...baseline },
  ratio: costRatio,
  headline: {
    subject: `validateDag ${validate.ops_per_sec} ops/s (mean ${validate.mean_us} us, p99 ${validate.p99_us} us)`,
    baseline: `JSON round trip ${baseline.ops_per_sec} ops/s (mean ${baseline.mean_us} us)`,
    ratio: `${costRatio}x the baseline's time per call`,
  },
  ratio_meaning: 'validateDag mean time / JSON round-trip mean time',
});
