// The DAG's shape, checked in the browser as its JSON is typed: what PUT /v2/pipelines/{id} refuses with a 422
// (nodes need a string `id`, a string `type` and an object `config`; edges a `from` and a `to`). Every other rule
// (connectors, configs, cycles...) is the validate endpoint's: a draft of the right shape is sent to it.
import type { Dag } from '@conduit/sdk';

export type DraftDag = { ok: true; dag: Dag } | { ok: false; problems: string[] };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function readDraft(text: string): DraftDag {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`Not valid JSON: ${error instanceof Error ? error.message : String(error)}`] };
  }
  if (!isObject(value)) return { ok: false, problems: ['The DAG is an object: { "nodes": [...], "edges": [...] }.'] };
  const problems: string[] = [];
  if (!Array.isArray(value.nodes) || value.nodes.length === 0) problems.push('"nodes" is a list of at least one node.');
  else
    value.nodes.forEach((node: unknown, i) => {
      if (!isObject(node)) return problems.push(`nodes[${i}] is an object.`);
      if (typeof node.id !== 'string') problems.push(`nodes[${i}] needs a string "id".`);
      if (typeof node.type !== 'string') problems.push(`nodes[${i}] needs a string "type".`);
      if (!isObject(node.config)) problems.push(`nodes[${i}] needs an object "config".`);
    });
  if (!Array.isArray(value.edges)) problems.push('"edges" is a list (it may be empty).');
  else
    value.edges.forEach((edge: unknown, i) => {
      if (!isObject(edge) || typeof edge.from !== 'string' || typeof edge.to !== 'string')
        problems.push(`edges[${i}] needs a string "from" and "to".`);
    });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, dag: value as unknown as Dag };
}
