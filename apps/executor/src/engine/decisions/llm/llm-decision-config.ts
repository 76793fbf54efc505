/** An llm decision node's config, checked again at run time (a DAG may have been stored invalid). */
import { parsePromptTemplate, type PromptToken } from '@conduit/dag';
import { NodeFailure } from '../../node-failure.js';

export const DEFAULT_SAMPLE_ROWS = 20;

export interface LlmDecisionConfig {
  choices: string[];
  default: string;
  prompt: PromptToken[];
  /** Below it the answer is not trusted and `default` applies; undefined: any confidence. */
  minConfidence: number | undefined;
  sampleRows: number;
  /** The node's timeout_seconds in ms; undefined: none. */
  nodeTimeoutMs: number | undefined;
}

const invalid = (message: string): NodeFailure => new NodeFailure(message, false, 'invalid_node_config');

export function llmDecisionConfigOf(config: Record<string, unknown>): LlmDecisionConfig {
  const {
    choices,
    default: fallback,
    prompt,
    min_confidence: minConfidence,
    sample_rows: sampleRows,
    timeout_seconds: timeout,
  } = config;
  if (!Array.isArray(choices) || choices.length === 0 || !choices.every((c) => typeof c === 'string' && c !== '')) {
    throw invalid('config.choices must be a non-empty list of strings');
  }
  if (typeof fallback !== 'string' || !choices.includes(fallback))
    throw invalid('config.default must be one of config.choices');
  if (typeof prompt !== 'string' || prompt.trim() === '') throw invalid('config.prompt is required');
  const parsed = parsePromptTemplate(prompt);
  if (parsed.problems.length > 0) throw invalid(`config.prompt has ${parsed.problems.join('; ')}`);
  if (minConfidence !== undefined && (typeof minConfidence !== 'number' || minConfidence < 0 || minConfidence > 1)) {
    throw invalid('config.min_confidence must be a number from 0 to 1');
  }
  if (sampleRows !== undefined && (typeof sampleRows !== 'number' || !Number.isInteger(sampleRows) || sampleRows < 1)) {
    throw invalid('config.sample_rows must be a positive integer');
  }
  return {
    choices: choices as string[],
    default: fallback,
    prompt: parsed.tokens,
    minConfidence,
    sampleRows: sampleRows ?? DEFAULT_SAMPLE_ROWS,
    nodeTimeoutMs: typeof timeout === 'number' && timeout > 0 ? Math.round(timeout * 1000) : undefined,
  };
}
