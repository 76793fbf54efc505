// The config each node type takes (api.md "Node types"). Every wrong field is an
// `invalid_node_config` issue with its config path; connector existence is checked elsewhere.
import { columnOverrideProblems } from './column-overrides.js';
import { ConfigChecker, isNonEmptyString, describeValue } from './config-checker.js';
import type { ConnectorInfo, DagNode, NodeType, ValidationIssue } from './dag.model.js';
import { isPlainObject } from './dag-shape.js';
import { parsePromptTemplate } from './prompt-template.js';
import { NODE_SETTINGS, nodeSettingIssues } from './node-settings.js';

export const SINK_MODES = ['append', 'overwrite', 'upsert'] as const;
export type SinkMode = (typeof SINK_MODES)[number];
/** `none`: a column the target lacks fails the sink; `add_columns`: it is added to the target table. */
export const SCHEMA_EVOLUTIONS = ['none', 'add_columns'] as const;
export const DECISION_STRATEGIES = ['rules', 'llm'] as const;
/** Rules one decision may hold: each is a statement the catalog parses on every save and draft validation. */
export const DECISION_RULES_MAX = 100;

/** Fields any node may set, in its config or on itself. */
const COMMON_FIELDS: readonly string[] = NODE_SETTINGS;
/** Fields of a source/sink besides which anything else is a connector's own field (path, topic...). */
const SOURCE_FIELDS = new Set([...COMMON_FIELDS, 'connector_id', 'query', 'table', 'columns']);
const SINK_FIELDS = new Set([...COMMON_FIELDS, 'connector_id', 'table', 'mode', 'key', 'create', 'schema_evolution']);

/**
 * Every field a transform, a sql node or a decision takes: these have no connector fields of their own, so any other
 * key is a typo that must not pass silently (api.md: unknown fields are refused).
 */
const CLOSED_FIELDS: Partial<Record<NodeType, ReadonlySet<string>>> = {
  transform: new Set([...COMMON_FIELDS, 'sql']),
  sql: new Set([...COMMON_FIELDS, 'connector_id', 'sql']),
  decision: new Set([
    ...COMMON_FIELDS,
    'strategy',
    'choices',
    'default',
    'rules',
    'connector_id',
    'prompt',
    'min_confidence',
    'sample_rows',
  ]),
};

/**
 * Every field a node may set, and what the message calls the node, where all its fields are known: a transform's, a
 * sql node's, a decision's, and a source's or sink's on a connector whose driver declares its own fields. Undefined
 * otherwise: a source's or sink's other fields are then its connector's (path, format, topic...).
 */
function knownFields(
  type: NodeType,
  connector: ConnectorInfo | undefined,
): { fields: readonly string[]; of: string } | undefined {
  const closed = CLOSED_FIELDS[type];
  if (closed) return { fields: [...closed], of: `a ${type} node` };
  if (type !== 'source' && type !== 'sink') return undefined;
  const own = connector?.nodeFields?.[type];
  if (!connector || !own) return undefined;
  const standard = type === 'source' ? SOURCE_FIELDS : SINK_FIELDS;
  return { fields: [...standard, ...own], of: `a ${type} on a ${connector.type} connector` };
}

function checkUnknownFields(c: ConfigChecker, type: NodeType, connector: ConnectorInfo | undefined): void {
  const known = knownFields(type, connector);
  if (!known) return;
  for (const key of Object.keys(c.config)) {
    if (!known.fields.includes(key))
      c.fail(key, `is not a field of ${known.of} (its fields: ${known.fields.join(', ')})`);
  }
}

function hasConnectorOwnField(config: Record<string, unknown>, standard: ReadonlySet<string>): boolean {
  return Object.keys(config).some((key) => !standard.has(key) && config[key] !== undefined);
}

function checkCommon(c: ConfigChecker): void {
  c.optionalNumber('timeout_seconds', { min: 0, exclusiveMin: true, max: 86_400 });
  c.optionalNumber('retries', { min: 0, max: 10, integer: true });
}

function checkSource(c: ConfigChecker): void {
  c.requireString('connector_id');
  c.optionalString('query');
  c.optionalString('table');
  if (c.has('query') && c.has('table')) c.fail('', 'must set query or table, not both');
  else if (!c.has('query') && !c.has('table') && !hasConnectorOwnField(c.config, SOURCE_FIELDS)) {
    c.fail('', "needs query or table (or the connector's own fields, e.g. path or topic)");
  }
  for (const problem of columnOverrideProblems(c.config['columns'])) {
    c.fail(problem.column === undefined ? 'columns' : `columns[${JSON.stringify(problem.column)}]`, problem.message);
  }
}

function checkTransform(c: ConfigChecker): void {
  c.requireString('sql');
}

function checkSink(c: ConfigChecker): void {
  c.requireString('connector_id');
  if (c.has('table')) c.optionalString('table');
  else if (!hasConnectorOwnField(c.config, SINK_FIELDS)) {
    c.fail('table', "is required (or the connector's own target fields, e.g. path or topic)");
  }
  // An absent mode means append.
  const mode: SinkMode | undefined = c.has('mode') ? c.requireOneOf('mode', SINK_MODES) : 'append';
  if (mode === 'upsert' || c.has('key')) c.stringList('key', mode === 'upsert');
  c.optionalBoolean('create');
  if (c.has('schema_evolution')) c.requireOneOf('schema_evolution', SCHEMA_EVOLUTIONS);
}

function checkSql(c: ConfigChecker): void {
  c.requireString('connector_id');
  c.requireString('sql');
}

function checkDecisionRules(c: ConfigChecker, choices: readonly string[] | undefined): void {
  const rules = c.config['rules'];
  if (!Array.isArray(rules) || rules.length === 0) {
    c.fail(
      'rules',
      rules === undefined
        ? 'is required for strategy "rules"'
        : `must be a non-empty list of { choice, sql } (got ${Array.isArray(rules) ? 'an empty list' : describeValue(rules)})`,
    );
    return;
  }
  if (rules.length > DECISION_RULES_MAX) {
    c.fail('rules', `has ${rules.length} rules; a decision takes at most ${DECISION_RULES_MAX}`);
    return;
  }
  rules.forEach((rule: unknown, i) => {
    if (!isPlainObject(rule))
      return c.fail(`rules[${i}]`, `must be an object { choice, sql } (got ${describeValue(rule)})`);
    const choice = rule['choice'];
    if (!isNonEmptyString(choice))
      c.fail(`rules[${i}].choice`, `must be a non-empty string (got ${describeValue(choice)})`);
    else if (choices && !choices.includes(choice)) c.fail(`rules[${i}].choice`, `"${choice}" is not one of choices`);
    if (!isNonEmptyString(rule['sql']))
      c.fail(`rules[${i}].sql`, `must be a non-empty string (got ${describeValue(rule['sql'])})`);
  });
}

function checkDecisionLlm(c: ConfigChecker): void {
  c.requireString('connector_id');
  const prompt = c.requireString('prompt');
  if (prompt !== undefined)
    for (const problem of parsePromptTemplate(prompt).problems) c.fail('prompt', `has ${problem}`);
  c.optionalNumber('min_confidence', { min: 0, max: 1 });
  c.optionalNumber('sample_rows', { min: 1, max: 1000, integer: true });
  // Rules belong to the other strategy; silently ignoring them would hide a half-edited node.
  if (c.has('rules')) c.fail('rules', 'is only for strategy "rules" (this node decides by llm)');
}

function checkDecision(c: ConfigChecker): void {
  const strategy = c.requireOneOf('strategy', DECISION_STRATEGIES);
  const choices = c.stringList('choices', true);
  const fallback = c.config['default'];
  if (fallback === undefined) c.fail('default', 'is required (one of choices)');
  else if (!isNonEmptyString(fallback))
    c.fail('default', `must be a non-empty string (got ${describeValue(fallback)})`);
  else if (choices && !choices.includes(fallback)) c.fail('default', `"${fallback}" is not one of choices`);
  if (strategy === 'rules') checkDecisionRules(c, choices);
  if (strategy === 'llm') checkDecisionLlm(c);
}

const CHECKS: Record<NodeType, (c: ConfigChecker) => void> = {
  source: checkSource,
  transform: checkTransform,
  sink: checkSink,
  sql: checkSql,
  decision: checkDecision,
};

/**
 * Appends an `invalid_node_config` issue for every wrong field of node `index`'s config. `connector` is the node's
 * connector when it exists: a source's or sink's fields are closed once its driver declares its own.
 */
export function checkNodeConfig(
  node: DagNode,
  type: NodeType,
  index: number,
  issues: ValidationIssue[],
  connector?: ConnectorInfo,
): void {
  const checker = new ConfigChecker(node.id, `nodes[${index}].config`, node.config, issues);
  CHECKS[type](checker);
  checkCommon(checker);
  checkUnknownFields(checker, type, connector);
  // The same settings on the node itself: checked where they stand, and not set twice differently.
  const own = Object.fromEntries(NODE_SETTINGS.flatMap((key) => (node[key] === undefined ? [] : [[key, node[key]]])));
  if (Object.keys(own).length > 0) checkCommon(new ConfigChecker(node.id, `nodes[${index}]`, own, issues, ''));
  nodeSettingIssues(node, index, issues);
}

/** The choices of a decision node whose `choices` is a list (its valid entries), else undefined. */
export function decisionChoices(node: DagNode): string[] | undefined {
  const choices = node.config['choices'];
  if (node.type !== 'decision' || !Array.isArray(choices)) return undefined;
  return [...new Set(choices.filter(isNonEmptyString))];
}
