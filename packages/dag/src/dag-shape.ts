// The structural check run at create/update: a DAG failing it is refused (422), anything
// that passes is stored and judged by validateDag. Codes match @conduit/contracts' field errors.
import { DAG_SHAPE_LIMITS, type ShapeProblem } from './dag.model.js';
import { NODE_SETTINGS } from './node-settings.js';

/** Enough to fix a broken document without answering a megabyte of problems. */
export const MAX_SHAPE_PROBLEMS = 100;

const DAG_KEYS = new Set(['nodes', 'edges']);
/** A node's own fields: its settings may stand here or in its config (node-settings.ts). */
const NODE_KEYS = new Set(['id', 'type', 'config', ...NODE_SETTINGS]);
const EDGE_KEYS = new Set(['from', 'to', 'when']);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class ShapeProblems {
  readonly list: ShapeProblem[] = [];

  get full(): boolean {
    return this.list.length >= MAX_SHAPE_PROBLEMS;
  }

  add(path: string, code: string, message: string): void {
    if (!this.full) this.list.push({ path, code, message });
  }

  /** Unknown fields are refused so a typo (`wehn`) cannot silently change what runs. */
  unknownKeys(obj: Record<string, unknown>, known: ReadonlySet<string>, path: string): void {
    for (const key of Object.keys(obj)) {
      if (!known.has(key)) this.add(`${path}.${key}`, 'unknown_field', 'is not a known field');
    }
  }

  requiredString(obj: Record<string, unknown>, key: string, path: string): void {
    const value = obj[key];
    if (value === undefined) this.add(`${path}.${key}`, 'required', 'is required');
    else if (typeof value !== 'string') this.add(`${path}.${key}`, 'invalid_type', 'expected string');
  }
}

function checkNode(node: unknown, path: string, problems: ShapeProblems): void {
  if (!isPlainObject(node)) {
    problems.add(path, 'invalid_type', 'expected object');
    return;
  }
  problems.requiredString(node, 'id', path);
  problems.requiredString(node, 'type', path);
  if (node['config'] === undefined) problems.add(`${path}.config`, 'required', 'is required');
  else if (!isPlainObject(node['config'])) problems.add(`${path}.config`, 'invalid_type', 'expected object');
  problems.unknownKeys(node, NODE_KEYS, path);
}

function checkEdge(edge: unknown, path: string, problems: ShapeProblems): void {
  if (!isPlainObject(edge)) {
    problems.add(path, 'invalid_type', 'expected object');
    return;
  }
  problems.requiredString(edge, 'from', path);
  problems.requiredString(edge, 'to', path);
  if (edge['when'] !== undefined && typeof edge['when'] !== 'string') {
    problems.add(`${path}.when`, 'invalid_type', 'expected string');
  }
  problems.unknownKeys(edge, EDGE_KEYS, path);
}

function checkList(
  dag: Record<string, unknown>,
  key: 'nodes' | 'edges',
  max: number,
  checkItem: (item: unknown, path: string, problems: ShapeProblems) => void,
  problems: ShapeProblems,
): void {
  const path = `dag.${key}`;
  const list = dag[key];
  if (list === undefined) return problems.add(path, 'required', 'is required');
  if (!Array.isArray(list)) return problems.add(path, 'invalid_type', 'expected array');
  if (list.length > max) return problems.add(path, 'too_long', `at most ${max} ${key} (got ${list.length})`);
  for (let i = 0; i < list.length && !problems.full; i++) checkItem(list[i], `${path}[${i}]`, problems);
}

/**
 * Shape check used at create/update: returns the shape problems (empty = shape ok), at most
 * MAX_SHAPE_PROBLEMS of them. A DAG that passes can be given to validateDag as a `Dag`.
 */
export function checkDagShape(input: unknown): ShapeProblem[] {
  const problems = new ShapeProblems();
  if (!isPlainObject(input)) {
    problems.add('dag', 'invalid_type', 'expected an object with arrays nodes and edges');
    return problems.list;
  }
  checkList(input, 'nodes', DAG_SHAPE_LIMITS.maxNodes, checkNode, problems);
  checkList(input, 'edges', DAG_SHAPE_LIMITS.maxEdges, checkEdge, problems);
  problems.unknownKeys(input, DAG_KEYS, 'dag');
  return problems.list;
}
