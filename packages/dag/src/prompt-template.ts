// The prompt template of an `llm` decision node: text with `{{rows}}`, `{{row_count}}`, `{{columns}}` and
// `{{params.<name>}}` placeholders. Parsed here once, so the validator and the executor agree on what is known.

/** Placeholders over the node's input; `params.<name>` names a run parameter. */
export const PROMPT_PLACEHOLDERS = ['rows', 'row_count', 'columns'] as const;
export type PromptInputPlaceholder = (typeof PROMPT_PLACEHOLDERS)[number];

export type PromptToken =
  { kind: 'text'; text: string } | { kind: 'input'; name: PromptInputPlaceholder } | { kind: 'param'; name: string };

export interface ParsedPrompt {
  tokens: PromptToken[];
  /** One phrase per unknown or malformed placeholder, e.g. `an unknown placeholder {{rowz}} (known: ...)`. */
  problems: string[];
}

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const PARAM = /^params\.([A-Za-z_][A-Za-z0-9_-]*)$/;
const KNOWN = `known: ${[...PROMPT_PLACEHOLDERS, 'params.<name>'].map((p) => `{{${p}}}`).join(', ')}`;

function isInputPlaceholder(name: string): name is PromptInputPlaceholder {
  return (PROMPT_PLACEHOLDERS as readonly string[]).includes(name);
}

export function parsePromptTemplate(template: string): ParsedPrompt {
  const tokens: PromptToken[] = [];
  const problems: string[] = [];
  const text = (value: string): void => {
    if (value === '') return;
    // A `{{` or `}}` left in plain text is a placeholder someone forgot to close or open.
    if (value.includes('{{') || value.includes('}}')) problems.push(`unbalanced braces near "${excerpt(value)}"`);
    tokens.push({ kind: 'text', text: value });
  };
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    text(template.slice(last, match.index));
    last = match.index + match[0].length;
    const name = (match[1] ?? '').trim();
    const param = PARAM.exec(name);
    if (isInputPlaceholder(name)) tokens.push({ kind: 'input', name });
    else if (param?.[1] !== undefined) tokens.push({ kind: 'param', name: param[1] });
    else problems.push(`an unknown placeholder ${match[0]} (${KNOWN})`);
  }
  text(template.slice(last));
  return { tokens, problems };
}

function excerpt(value: string): string {
  const at = value.search(/\{\{|\}\}/);
  return value.slice(Math.max(0, at - 10), at + 20);
}
