// A realistic, valid 500-node pipeline DAG for the validation bench: sources first, then transforms
// with a decision every ~40 nodes (each choice routed by a `when` edge), sinks last. Generated from a
// fixed seed, so every run measures the same DAG.

/** Connectors the DAG's nodes reference, as the catalog would look them up. */
const CONNECTORS = new Map([
  ['con_pg', { type: 'postgres', roles: ['source', 'sink', 'sql'] }],
  ['con_s3', { type: 's3', roles: ['source', 'sink'] }],
  ['con_llm', { type: 'openai', roles: ['llm'] }],
]);

export const validationContext = { connector: (id) => CONNECTORS.get(id) };

/** mulberry32: a tiny seeded PRNG. */
function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SOURCES = 40;
const DECISIONS = 10;
const SINKS = 50;
/** Upstream nodes a transform or sink may read from: the last N feedable nodes, as real pipelines are local. */
const WINDOW = 60;
const CHOICES = ['high', 'medium', 'low'];

function sourceNode(i, rand) {
  const id = `src_${i}`;
  if (rand() < 0.3) return { id, type: 'source', config: { connector_id: 'con_s3', path: `s3://lake/raw/${id}/` } };
  if (rand() < 0.5) return { id, type: 'source', config: { connector_id: 'con_pg', table: `raw_${i}`, retries: 3 } };
  return {
    id,
    type: 'source',
    config: { connector_id: 'con_pg', query: `select * from events_${i} where ts > now() - interval '1 day'` },
  };
}

function transformNode(i) {
  return {
    id: `tx_${i}`,
    type: 'transform',
    config: { sql: `select id, sum(amount) as total from input group by id -- step ${i}`, timeout_seconds: 300 },
  };
}

function decisionNode(i, rand) {
  const id = `route_${i}`;
  const base = { choices: CHOICES, default: 'low' };
  if (rand() < 0.3) {
    return {
      id,
      type: 'decision',
      config: {
        ...base,
        strategy: 'llm',
        connector_id: 'con_llm',
        prompt: 'Classify the batch by risk',
        min_confidence: 0.7,
        sample_rows: 50,
      },
    };
  }
  const rules = CHOICES.map((choice, k) => ({ choice, sql: `select count(*) > ${(k + 1) * 100} from input` }));
  return { id, type: 'decision', config: { ...base, strategy: 'rules', rules } };
}

function sinkNode(i, rand) {
  const id = `sink_${i}`;
  if (rand() < 0.4)
    return { id, type: 'sink', config: { connector_id: 'con_pg', table: `mart_${i}`, mode: 'upsert', key: ['id'] } };
  if (rand() < 0.5) return { id, type: 'sink', config: { connector_id: 'con_s3', path: `s3://lake/out/${id}/` } };
  return { id, type: 'sink', config: { connector_id: 'con_pg', table: `report_${i}`, mode: 'overwrite' } };
}

/** The DAG: 40 sources, 400 transforms, 10 decisions, 50 sinks, about 1,000 edges; valid, without warnings. */
export function realisticDag(seed = 42) {
  const rand = seededRandom(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const nodes = [];
  const edges = [];
  const edgeKeys = new Set();
  const feedable = []; // ids that transforms and sinks may read from (sources, transforms)
  const addEdge = (from, to, when) => {
    const key = `${from}->${to}`;
    if (edgeKeys.has(key)) return false;
    edgeKeys.add(key);
    edges.push(when === undefined ? { from, to } : { from, to, when });
    return true;
  };
  const feedFromWindow = (to, count) => {
    const window = feedable.slice(-WINDOW);
    for (let added = 0; added < count;) if (addEdge(pick(window), to)) added++;
  };

  for (let i = 0; i < SOURCES; i++) {
    const node = sourceNode(i, rand);
    nodes.push(node);
    feedable.push(node.id);
  }
  // Each decision routes its choices to transforms further down; those edges wait here until the target exists.
  const pendingWhen = [];
  const transforms = 500 - SOURCES - DECISIONS - SINKS;
  const decisionEvery = Math.floor(transforms / (DECISIONS + 1));
  for (let i = 0; i < transforms; i++) {
    if (i > 0 && i % decisionEvery === 0 && i / decisionEvery <= DECISIONS) {
      const decision = decisionNode(i / decisionEvery, rand);
      nodes.push(decision);
      feedFromWindow(decision.id, 1);
      CHOICES.forEach((choice, k) => pendingWhen.push({ from: decision.id, when: choice, at: i + 1 + k * 3 }));
    }
    const node = transformNode(i);
    nodes.push(node);
    feedFromWindow(node.id, rand() < 0.3 ? 3 : 2);
    for (const p of pendingWhen.filter((p) => p.at === i)) addEdge(p.from, node.id, p.when);
    feedable.push(node.id);
  }
  for (let i = 0; i < SINKS; i++) {
    const node = sinkNode(i, rand);
    nodes.push(node);
    feedFromWindow(node.id, rand() < 0.5 ? 2 : 1);
  }
  return { nodes, edges };
}

/**
 * The chain the run benches time (issue 18): a postgres `source` of `select 1 as n` on `connectorId`, then
 * `nodes - 1` transforms, each selecting `n` from the one before (`n0` .. `n<nodes-1>`).
 */
export function transformChain(connectorId, nodes) {
  const chain = [{ id: 'n0', type: 'source', config: { connector_id: connectorId, query: 'select 1 as n' } }];
  for (let i = 1; i < nodes; i++)
    chain.push({ id: `n${i}`, type: 'transform', config: { sql: `select n from n${i - 1}` } });
  return { nodes: chain, edges: chain.slice(1).map((n, i) => ({ from: `n${i}`, to: n.id })) };
}
