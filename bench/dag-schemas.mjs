// Validation's check of SQL against known schemas (the catalog's schemaIssues) on a 40-node DAG whose every source
// has recorded columns, so every transform and rule is bound in DuckDB: the cost a save or a Validate adds when
// schemas are known. Baseline: validateDag on the same DAG, the rules every validation runs anyway.
import { isolatedSqlProblem } from '@conduit/connectors';
import { validateDag } from '@conduit/dag';
import { schemaIssues } from '../apps/catalog/dist/pipelines/pipeline-schemas.js';
import { validationContext } from './lib/dag-fixture.mjs';
import { printResult, round, summarizeDurations } from './lib/report.mjs';

const CALLS = Number(process.env.BENCH_SCHEMAS_CALLS ?? 50);
const SOURCES = 8;
const TRANSFORMS = 24;
const DECISIONS = 2;
const SINKS = 6;

/** Twelve columns of the kinds real tables hold, as a run records them. */
const columns = (i) =>
  [
    ['id', 'BIGINT'],
    ['customer_id', 'BIGINT'],
    ['amount', 'DECIMAL(12,2)'],
    ['tax', 'DECIMAL(12,2)'],
    ['currency', 'VARCHAR'],
    ['status', 'VARCHAR'],
    ['placed_at', 'TIMESTAMP WITH TIME ZONE'],
    ['day', 'DATE'],
    ['tags', 'VARCHAR[]'],
    ['meta', 'JSON'],
    ['ok', 'BOOLEAN'],
    [`extra_${i}`, 'INTEGER'],
  ].map(([name, type]) => ({ name, type }));

function fortyNodeDag() {
  const nodes = [];
  const edges = [];
  const sources = [];
  for (let i = 0; i < SOURCES; i++) {
    const config = { connector_id: 'con_pg', query: `select * from orders_${i}` };
    nodes.push({ id: `src_${i}`, type: 'source', config });
    sources.push({ node_id: `src_${i}`, run_id: 'run_bench', node: { type: 'source', config }, columns: columns(i) });
  }
  // Each transform reads one or two upstream nodes: a source, or an earlier transform (which has the same columns).
  for (let i = 0; i < TRANSFORMS; i++) {
    const a = i < SOURCES ? `src_${i}` : `tx_${i - SOURCES}`;
    const b = `src_${(i + 3) % SOURCES}`;
    const join = i % 3 === 0;
    const sql = join
      ? `select a.id, a.customer_id, a.amount + b.tax as amount, a.tax, a.currency, a.status, a.placed_at, a.day, a.tags, a.meta, a.ok, a.extra_${i % SOURCES} from ${a} a join ${b} b on b.id = a.id`
      : `select id, customer_id, sum(amount) over (partition by customer_id) as amount, tax, currency, status, placed_at, day, tags, meta, ok, extra_${i % SOURCES} from ${a} where amount > 0 and status <> 'void'`;
    nodes.push({ id: `tx_${i}`, type: 'transform', config: { sql } });
    edges.push({ from: a, to: `tx_${i}` });
    if (join) edges.push({ from: b, to: `tx_${i}` });
  }
  const choices = ['high', 'low'];
  for (let i = 0; i < DECISIONS; i++) {
    const input = `tx_${TRANSFORMS - 1 - i}`;
    const rules = [{ choice: 'high', sql: `select sum(amount) > 1000 from ${input}` }];
    nodes.push({ id: `route_${i}`, type: 'decision', config: { strategy: 'rules', choices, default: 'low', rules } });
    edges.push({ from: input, to: `route_${i}` });
  }
  for (let i = 0; i < SINKS; i++) {
    nodes.push({
      id: `sink_${i}`,
      type: 'sink',
      config: { connector_id: 'con_pg', table: `mart_${i}`, mode: 'append' },
    });
    if (i < DECISIONS * 2)
      edges.push({ from: `route_${i % DECISIONS}`, to: `sink_${i}`, when: choices[Math.floor(i / DECISIONS)] });
    else edges.push({ from: `tx_${i}`, to: `sink_${i}` });
  }
  return { dag: { nodes, edges }, evidence: { kind: 'recorded', reply: { sources } } };
}

const { dag, evidence } = fortyNodeDag();
const rules = validateDag(dag, validationContext);
if (!rules.valid) throw new Error(`the bench DAG must be valid: ${JSON.stringify(rules.errors.slice(0, 3))}`);
// The SQL-check child started first (as the catalog does at boot): started by the first check, on a busy machine it
// took that check's whole budget, which then answered "not checked" warnings.
await isolatedSqlProblem('select 1', 'select', 60_000);
const first = await schemaIssues(dag, rules.execution_order, evidence);
if (first.errors.length > 0 || first.warnings.length > 0)
  throw new Error(`the bench DAG's SQL must bind: ${JSON.stringify([...first.errors, ...first.warnings].slice(0, 3))}`);

/** Per-call durations (ns) of `fn`, after a few calls of warm-up. */
async function measure(fn, calls) {
  for (let i = 0; i < 3; i++) await fn();
  const out = [];
  for (let i = 0; i < calls; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t0));
  }
  return out;
}

const schemas = summarizeDurations(await measure(() => schemaIssues(dag, rules.execution_order, evidence), CALLS));
const baseline = summarizeDurations(await measure(async () => validateDag(dag, validationContext), CALLS * 20));
const ratio = round(schemas.mean_us / baseline.mean_us, 1);
const bound = TRANSFORMS + DECISIONS;

console.log(
  `DAG: ${dag.nodes.length} nodes, ${dag.edges.length} edges, ${bound} SQL statements bound against ${SOURCES} recorded sources`,
);
console.log(
  `schemaIssues   mean ${round(schemas.mean_us / 1000, 2)} ms  p99 ${round(schemas.p99_us / 1000, 2)} ms  (${schemas.calls} calls)`,
);
console.log(
  `validateDag    mean ${baseline.mean_us} us  p99 ${baseline.p99_us} us  (${baseline.calls} calls, baseline)`,
);

printResult('dag-schemas', {
  nodes: dag.nodes.length,
  statements: bound,
  schemas,
  baseline: { name: 'validateDag', ...baseline },
  ratio,
  headline: {
    subject: `schema check of a 40-node DAG mean ${round(schemas.mean_us / 1000, 2)} ms (p99 ${round(schemas.p99_us / 1000, 2)} ms)`,
    baseline: `validateDag of it ${baseline.mean_us} us`,
    ratio: `${ratio}x validateDag's time per call`,
  },
  ratio_meaning: 'schemaIssues mean time / validateDag mean time, same DAG',
});
