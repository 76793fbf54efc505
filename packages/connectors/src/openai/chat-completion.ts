/** A minimal typed client for OpenAI-compatible `POST /chat/completions` and `GET /models`. */
import { ConnectorError } from '../connector-error.js';
import { resolveUrl } from '../http/http.config.js';
import { HttpSession } from '../http/http-session.js';
import { httpSettings, parseOpenAiConfig, type OpenAiConfig } from './openai.config.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatCompletionRequest {
  messages: ChatMessage[];
  /** Defaults to the connector's model. */
  model?: string;
  temperature?: number;
  max_tokens?: number;
  /** Passed through, e.g. `{ type: 'json_object' }` or a `json_schema` format. */
  response_format?: Record<string, unknown>;
}

export interface ChatCompletionResult {
  content: string;
  model: string;
  finish_reason: string | null;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
}

interface ChatCompletionBody {
  model?: unknown;
  choices?: { message?: { content?: unknown }; finish_reason?: unknown }[];
  usage?: ChatCompletionResult['usage'];
}

function parseBody(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ConnectorError(`${what} did not answer JSON`, 'transient_error');
  }
}

export async function chatCompletion(
  config: Record<string, unknown>,
  request: ChatCompletionRequest,
  signal?: AbortSignal,
): Promise<ChatCompletionResult> {
  const cfg = parseOpenAiConfig(config);
  const session = new HttpSession(httpSettings(cfg));
  const body = {
    model: request.model ?? cfg.model,
    messages: request.messages,
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.max_tokens === undefined ? {} : { max_tokens: request.max_tokens }),
    ...(request.response_format === undefined ? {} : { response_format: request.response_format }),
  };
  const res = await session.request('POST', resolveUrl(session.cfg, '/chat/completions'), JSON.stringify(body), signal);
  const answer = parseBody(res.body, 'the chat completions endpoint') as ChatCompletionBody;
  const choice = answer.choices?.[0];
  if (!choice || typeof choice.message?.content !== 'string') {
    throw new ConnectorError('the chat completion answer has no message content', 'transient_error');
  }
  return {
    content: choice.message.content,
    model: typeof answer.model === 'string' ? answer.model : body.model,
    finish_reason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    usage: answer.usage ?? null,
  };
}

/** The ids of the models the endpoint offers. */
export async function listModels(cfg: OpenAiConfig, signal?: AbortSignal): Promise<string[]> {
  const session = new HttpSession({ ...httpSettings(cfg), max_retries: 0 });
  const res = await session.request('GET', resolveUrl(session.cfg, '/models'), undefined, signal);
  const answer = parseBody(res.body, 'the models endpoint') as { data?: { id?: unknown }[] };
  if (!Array.isArray(answer.data)) throw new ConnectorError('the models answer has no data list', 'config_error');
  return answer.data.map((m) => m.id).filter((id): id is string => typeof id === 'string');
}
