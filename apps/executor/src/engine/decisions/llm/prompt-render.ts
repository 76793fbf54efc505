/** Renders an llm decision's prompt template over its input and the run parameters, and hashes the result. */
import { createHash } from 'node:crypto';
import type { PromptToken } from '@conduit/dag';
import type { DecisionInput } from './decision-input.js';

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
  const text = tokens
    .map((token) => {
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
          if (token.name === 'rows') return input.rows.map((row) => JSON.stringify(row)).join('\n');
          if (token.name === 'row_count') return String(input.row_count);
          return input.columns.join(', ');
      }
    })
    .join('');
  return { text, hash: createHash('sha256').update(text).digest('hex'), missingParams: [...missing] };
}
