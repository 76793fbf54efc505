/** Renders an llm decision's prompt template over its input and the run parameters, and hashes the result. */
import { createHash } from 'node:crypto';
import type { PromptToken } from '@conduit/dag';
import { NodeFailure } from '../../node-failure.js';
import type { DecisionInput } from './decision-input.js';

/**
 * The longest prompt rendered: past a model's context, and each `{{input.rows}}` repeats the sample rows (up to
 * SAMPLE_JSON_LIMIT_BYTES), so a template could otherwise multiply them into the executor's heap.
 */
export const PROMPT_LIMIT_CHARS = 4 * 1024 * 1024;

export interface RenderedPrompt {
  text: string;
  /** sha256 (hex) of `text`: identifies the prompt in outputs and logs without holding its data. */
  hash: string;
  /** `params.<name>` placeholders the run has no parameter for (rendered empty). */
  missingParams: string[];
}

const paramText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

export function renderPrompt(
  tokens: readonly PromptToken[],
  input: DecisionInput,
  params: Readonly<Record<string, unknown>>,
): RenderedPrompt {
  const missing = new Set<string>();
  let rows: string | undefined;
  let length = 0;
  const text = tokens
    .map((token) => {
      const piece = pieceOf(token);
      length += piece.length;
      if (length > PROMPT_LIMIT_CHARS) {
        throw new NodeFailure(
          `the prompt renders to more than ${PROMPT_LIMIT_CHARS} characters (each {{input.rows}} shows every sample row): shorten it or lower sample_rows`,
          false,
        );
      }
      return piece;
    })
    .join('');
  return { text, hash: createHash('sha256').update(text).digest('hex'), missingParams: [...missing] };

  function pieceOf(token: PromptToken): string {
    switch (token.kind) {
      case 'text':
        return token.text;
      case 'param':
        if (!Object.hasOwn(params, token.name) || params[token.name] === undefined) {
          missing.add(token.name);
          return '';
        }
        return paramText(params[token.name]);
      case 'input':
        if (token.name === 'rows') return (rows ??= input.rows.map((row) => JSON.stringify(row)).join('\n'));
        if (token.name === 'row_count') return String(input.row_count);
        return input.columns.join(', ');
    }
  }
}
