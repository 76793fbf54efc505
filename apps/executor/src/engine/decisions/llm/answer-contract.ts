/**
 * What the model is asked to answer, `{ choice, reason, confidence }`, as a system message and a JSON schema, and the
 * check of what it answered. Servers without structured outputs get the same contract as plain-JSON instructions.
 */
import type { ChatMessage, JsonSchemaResponseFormat } from './chat-client.js';

export interface DecisionAnswer {
  choice: string;
  /** Empty when the model gave none. */
  reason: string;
  /** 0..1; null when the model gave none (or none usable). */
  confidence: number | null;
}

export type AnswerCheck = { ok: true; answer: DecisionAnswer } | { ok: false; problem: string };

export function answerSchema(choices: readonly string[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      choice: { type: 'string', enum: [...choices] },
      reason: { type: 'string' },
      confidence: { type: 'number', minimum: 0, maximum: 1 },
    },
    required: ['choice', 'reason', 'confidence'],
    additionalProperties: false,
  };
}

export function responseFormat(choices: readonly string[]): JsonSchemaResponseFormat {
  return { type: 'json_schema', json_schema: { name: 'decision', strict: true, schema: answerSchema(choices) } };
}

const contractText = (choices: readonly string[]): string =>
  `{"choice": one of ${JSON.stringify(choices)}, "reason": "one short sentence", "confidence": a number from 0 to 1}`;

export function systemMessage(choices: readonly string[]): ChatMessage {
  return {
    role: 'system',
    content:
      "You make one routing decision in a data pipeline. Read the user's message and choose exactly one of these " +
      `choices: ${choices.map((c) => JSON.stringify(c)).join(', ')}.\n` +
      `Answer with only a JSON object, no other text: ${contractText(choices)}.`,
  };
}

/** Appended after an unusable answer: the answer itself, then what was wrong with it. */
export function correctionMessages(badContent: string, problem: string, choices: readonly string[]): ChatMessage[] {
  return [
    { role: 'assistant', content: badContent },
    {
      role: 'user',
      content: `That answer cannot be used: ${problem}. Answer again with only a JSON object: ${contractText(choices)}.`,
    },
  ];
}

/** The first balanced `{...}` in `text` (strings and escapes respected), e.g. inside a ```json fence. */
export function firstJsonObject(text: string): string | undefined {
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const ch = text[i];
      if (inString) {
        if (ch === '\\') i++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === '{') depth++;
      else if (ch === '}' && --depth === 0) {
        const candidate = text.slice(start, i + 1);
        try {
          JSON.parse(candidate);
          return candidate;
        } catch {
          break;
        }
      }
    }
  }
  return undefined;
}

/**
 * What the model answered, or why it cannot be used. Only the choice decides that (api.md: re-ask when the answer is
 * not one of the choices): a missing reason is empty and a missing or malformed confidence null, unless the node sets
 * `min_confidence` (`needsConfidence`), which cannot be judged without one.
 */
export function checkAnswer(content: string, choices: readonly string[], needsConfidence = false): AnswerCheck {
  const json = firstJsonObject(content);
  if (json === undefined) return { ok: false, problem: 'it is not a JSON object' };
  const value = JSON.parse(json) as Record<string, unknown>;
  const { choice, reason, confidence } = value;
  if (typeof choice !== 'string') return { ok: false, problem: '"choice" is missing' };
  // Small models vary case and spacing; the choice itself must still be one of the list.
  const known =
    choices.find((c) => c === choice) ?? choices.find((c) => c.toLowerCase() === choice.trim().toLowerCase());
  if (known === undefined)
    return { ok: false, problem: `"choice" ${JSON.stringify(choice)} is not one of ${JSON.stringify(choices)}` };
  const stated =
    typeof confidence === 'number' && Number.isFinite(confidence) && confidence >= 0 && confidence <= 1
      ? confidence
      : null;
  if (stated === null && needsConfidence) return { ok: false, problem: '"confidence" must be a number from 0 to 1' };
  return { ok: true, answer: { choice: known, reason: typeof reason === 'string' ? reason : '', confidence: stated } };
}
