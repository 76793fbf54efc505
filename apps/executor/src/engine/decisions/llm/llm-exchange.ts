/**
 * The conversation of one llm decision: ask for `{ choice, reason, confidence }` with a JSON schema (plain JSON when
 * the server rejects response_format), re-ask once after an unusable answer, and take `default` on an error, on the
 * deadline, on low confidence or on a second unusable answer, as api.md asks of every failed answer. A rejected api
 * key (401/403), an unknown host or an endpoint the network policy refuses (never called) are failed answers too, but
 * no later run can do better with them: the default is taken with an error-level log line naming the connector, and
 * the node's output says why (`fell_back`, `reason`).
 */
import { ConnectorError } from '@conduit/connectors';
import { messageOf } from '../../node-failure.js';
import type { RunLogLevel } from '../../run-log-sink.js';
import { checkAnswer, correctionMessages, responseFormat, systemMessage } from './answer-contract.js';
import { ChatHttpError, type ChatClient, type ChatMessage, type ChatResult } from './chat-client.js';

export interface ExchangeOptions {
  client: ChatClient;
  /** Named in the config error of a rejected key. */
  connectorId: string;
  choices: readonly string[];
  default: string;
  minConfidence: number | undefined;
  /** The rendered prompt (the user message). */
  prompt: string;
  /** For the whole exchange, every request included. */
  deadlineMs: number;
  /** The attempt's signal: its abort (cancel, node timeout) is rethrown, not turned into a default. */
  signal: AbortSignal;
  log(level: RunLogLevel, message: string): void;
}

export interface LlmDecision {
  choice: string;
  reason: string;
  /** The model's, when it gave a usable one. */
  confidence: number | null;
  model: string;
  tokens: { prompt: number; completion: number; total: number };
  latency_ms: number;
  fell_back: boolean;
  /** Chat requests made. */
  attempts: number;
}

// Wording of servers that refuse structured outputs (OpenAI-compatible servers without json_schema support).
const RESPONSE_FORMAT_REFUSAL = /response_format|json_schema|structured output|guided|grammar/i;

const rejectsResponseFormat = (err: ChatHttpError): boolean =>
  (err.status === 400 || err.status === 422) && RESPONSE_FORMAT_REFUSAL.test(err.message);

export async function runLlmExchange(opts: ExchangeOptions): Promise<LlmDecision> {
  const startedMs = Date.now();
  const deadline = AbortSignal.timeout(opts.deadlineMs);
  const signal = AbortSignal.any([opts.signal, deadline]);
  const tokens = { prompt: 0, completion: 0, total: 0 };
  let model = opts.client.model;
  let attempts = 0;
  let structured = true;
  let reasked = false;
  const messages: ChatMessage[] = [systemMessage(opts.choices), { role: 'user', content: opts.prompt }];

  const decided = (choice: string, reason: string, confidence: number | null, fellBack: boolean): LlmDecision => ({
    choice,
    reason,
    confidence,
    model,
    tokens,
    latency_ms: Date.now() - startedMs,
    fell_back: fellBack,
    attempts,
  });
  const fallBack = (why: string, confidence: number | null = null, level: RunLogLevel = 'warn'): LlmDecision => {
    opts.log(level, `llm: taking default "${opts.default}": ${why}`);
    return decided(opts.default, `fell back to default: ${why}`, confidence, true);
  };

  for (;;) {
    attempts++;
    const sentMs = Date.now();
    let result: ChatResult;
    try {
      result = await opts.client.complete(
        { messages, ...(structured ? { response_format: responseFormat(opts.choices) } : {}) },
        signal,
      );
    } catch (err) {
      if (opts.signal.aborted) throw opts.signal.reason;
      if (deadline.aborted) return fallBack(`no answer within ${opts.deadlineMs} ms`);
      // Settings no later run can succeed with either (refused by the network policy, unknown host).
      if (err instanceof ConnectorError && err.errorClass === 'config_error') {
        return fallBack(`connector "${opts.connectorId}": ${err.message}`, null, 'error');
      }
      if (!(err instanceof ChatHttpError)) return fallBack(`request failed: ${messageOf(err)}`);
      opts.log('warn', `llm request ${attempts}: HTTP ${err.status} after ${Date.now() - sentMs} ms: ${err.message}`);
      if (err.status === 401 || err.status === 403) {
        const what = err.status === 401 ? 'rejected its api_key' : 'refused access (check its api_key and model)';
        return fallBack(
          `connector "${opts.connectorId}": the model server ${what} (HTTP ${err.status})`,
          null,
          'error',
        );
      }
      if (structured && rejectsResponseFormat(err)) {
        structured = false;
        opts.log('info', 'llm: the server does not take response_format; asking for plain JSON');
        continue;
      }
      return fallBack(`HTTP ${err.status}: ${err.message}`);
    }
    model = result.model;
    if (result.usage) {
      tokens.prompt += result.usage.prompt_tokens;
      tokens.completion += result.usage.completion_tokens;
      tokens.total += result.usage.total_tokens;
    }
    const usage = result.usage
      ? `${result.usage.prompt_tokens}+${result.usage.completion_tokens}=${result.usage.total_tokens}`
      : 'not reported';
    opts.log('info', `llm request ${attempts}: answered in ${Date.now() - sentMs} ms by ${model}, tokens ${usage}`);

    const check = checkAnswer(result.content, opts.choices, opts.minConfidence !== undefined);
    if (check.ok) {
      const { choice, reason, confidence } = check.answer;
      if (opts.minConfidence !== undefined && confidence !== null && confidence < opts.minConfidence) {
        return fallBack(
          `confidence ${confidence} is below min_confidence ${opts.minConfidence} (the model chose "${choice}": ${reason})`,
          confidence,
        );
      }
      return decided(choice, reason, confidence, false);
    }
    if (reasked) return fallBack(`a second unusable answer (${check.problem})`);
    opts.log('warn', `llm: unusable answer (${check.problem}); asking again`);
    reasked = true;
    messages.push(...correctionMessages(result.content, check.problem, opts.choices));
  }
}
