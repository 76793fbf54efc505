export {
  NODE_TYPES,
  LEAVES_TABLE,
  READS_INPUTS,
  DAG_LIMITS,
  DAG_SHAPE_LIMITS,
  type NodeType,
  type DagNode,
  type DagEdge,
  type Dag,
  type ShapeProblem,
  type ConnectorRole,
  type ConnectorInfo,
  type ValidationContext,
  type ValidationIssue,
  type ValidationResult,
} from './dag.model.js';
export { checkDagShape, isPlainObject, MAX_SHAPE_PROBLEMS } from './dag-shape.js';
export { validateDag } from './validate-dag.js';
export { NODE_SETTINGS, nodeWithSettings } from './node-settings.js';
export { referencedConnectorIds, connectorRoleOf } from './connector-refs.js';
export { SINK_MODES, SCHEMA_EVOLUTIONS, DECISION_STRATEGIES, DECISION_RULES_MAX } from './node-config.rules.js';
export {
  PROMPT_PLACEHOLDERS,
  parsePromptTemplate,
  type PromptInputPlaceholder,
  type PromptToken,
  type ParsedPrompt,
} from './prompt-template.js';
export {
  COLUMN_TYPE_PATTERN,
  COLUMN_TYPE_MAX_LENGTH,
  columnOverrideProblems,
  type ColumnOverrideProblem,
} from './column-overrides.js';
