/**
 * A ChatClient over fetch for an `openai` connector config (base_url, api_key, model, timeout_ms): POST
 * {base_url}/chat/completions, the protocol OpenAI, Ollama, vLLM and the llama.cpp server all speak.
 */
import { ChatHttpError, type ChatClient, type ChatRequest, type ChatResult, type ChatUsage } from './chat-client.js';

export interface OpenAiConnectorConfig {
  base_url: string;
  /** Optional: local servers (Ollama, llama.cpp) usually need none. */
  api_key?: string;
  model: string;
  /** Per decision exchange; default 30000. */
  timeout_ms?: number;
}

export const DEFAULT_LLM_TIMEOUT_MS = 30_000;

/** The connector's settings, or a message saying which one is wrong (never its value: api_key is a secret). */
export function openAiConfigOf(config: Record<string, unknown>): OpenAiConnectorConfig | string {
  const { base_url: baseUrl, api_key: apiKey, model, timeout_ms: timeoutMs } = config;
  if (typeof baseUrl !== 'string' || !URL.canParse(baseUrl)) return 'base_url must be an http(s) URL';
  if (!/^https?:$/.test(new URL(baseUrl).protocol)) return 'base_url must be an http(s) URL';
  if (typeof model !== 'string' || model.trim() === '') return 'model is required';
  if (apiKey !== undefined && apiKey !== null && typeof apiKey !== 'string') return 'api_key must be a string';
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !(timeoutMs > 0))) return 'timeout_ms must be a positive number';
  return {
    base_url: baseUrl,
    model,
    ...(typeof apiKey === 'string' && apiKey !== '' ? { api_key: apiKey } : {}),
    ...(timeoutMs === undefined ? {} : { timeout_ms: timeoutMs }),
  };
}

const completionsUrl = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, '')}/chat/completions`;

function usageOf(value: unknown): ChatUsage | null {
  const u = value as Partial<Record<keyof ChatUsage, unknown>> | null | undefined;
  if (typeof u?.prompt_tokens !== 'number' && typeof u?.completion_tokens !== 'number') return null;
  const prompt = typeof u.prompt_tokens === 'number' ? u.prompt_tokens : 0;
  const completion = typeof u.completion_tokens === 'number' ? u.completion_tokens : 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: typeof u.total_tokens === 'number' ? u.total_tokens : prompt + completion };
}

/** The server's error text: OpenAI's `{ error: { message } }`, llama.cpp's and vLLM's variants, or the raw body. */
function errorTextOf(body: string, status: number): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    const error = parsed.error;
    const text = typeof error === 'string' ? error : (error?.message ?? parsed.message ?? parsed.detail);
    if (typeof text === 'string' && text !== '') return text.slice(0, 500);
  } catch {
    // Not JSON: the body itself says what went wrong.
  }
  return body.trim().slice(0, 500) || `HTTP ${status}`;
}

export function openAiChatClient(config: OpenAiConnectorConfig): ChatClient {
  const scrub = (text: string): string => (config.api_key ? text.split(config.api_key).join('********') : text);
  return {
    model: config.model,
    async complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResult> {
      const response = await fetch(completionsUrl(config.base_url), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(config.api_key ? { authorization: `Bearer ${config.api_key}` } : {}),
        },
        // temperature 0: the same input should route the same way.
        body: JSON.stringify({ model: config.model, temperature: 0, ...request }),
        signal,
      });
      const body = await response.text();
      if (!response.ok) throw new ChatHttpError(response.status, scrub(errorTextOf(body, response.status)));
      let parsed: { model?: unknown; usage?: unknown; choices?: { message?: { content?: unknown } }[] };
      try {
        parsed = JSON.parse(body) as typeof parsed;
      } catch {
        throw new ChatHttpError(response.status, 'the server answered with something other than JSON');
      }
      const content = parsed.choices?.[0]?.message?.content;
      return {
        content: typeof content === 'string' ? content : '',
        model: typeof parsed.model === 'string' && parsed.model !== '' ? parsed.model : config.model,
        usage: usageOf(parsed.usage),
      };
    },
  };
}
