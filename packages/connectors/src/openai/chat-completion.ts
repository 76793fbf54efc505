/** A minimal typed client for OpenAI-compatible `POST /chat/completions` and `GET /models`. */
import { ConnectorError } from '../connector-error.js';
import { HttpStatusError } from '../http/http-errors.js';
import { resolveUrl } from '../http/http.config.js';
import { HttpSession } from '../http/http-session.js';
import { httpSettings, parseOpenAiConfig, type OpenAiConfig } from './openai.config.js';

/**
 * The largest answer parsed (a completion, the models list: tens of KB): the whole answer is parsed on the caller's
 * main thread, in the catalog (Test Connection) or an executor, at many times its size (a 58 MB models list took the
 * catalog 550 MB and seconds, answering other tenants 503).
 */
const ANSWER_MAX_BYTES = 4 * 1024 * 1024;

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

export interface ChatCompletionOptions {
  /** Retries of 429 / 5xx / dropped connections; default 2. 0 leaves them to a caller with its own policy. */
  maxRetries?: number;
}

/** The endpoint answered with an HTTP error: its status and its own error text, secrets scrubbed. */
export class ChatCompletionHttpError extends ConnectorError {
  constructor(
    readonly status: number,
    /** OpenAI's `error.message` (or a compatible server's variant, or the raw body), at most 500 characters. */
    readonly serverMessage: string,
    cause: HttpStatusError,
  ) {
    super(
      `the chat completions endpoint answered HTTP ${status}${status === 401 ? ' (check the api_key)' : ''}: ${serverMessage}`,
      cause.errorClass,
      { code: cause.code, cause },
    );
    this.name = 'ChatCompletionHttpError';
  }
}

interface ChatCompletionBody {
  model?: unknown;
  choices?: { message?: { content?: unknown }; finish_reason?: unknown }[];
  usage?: unknown;
}

type Usage = NonNullable<ChatCompletionResult['usage']>;

function parseBody(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ConnectorError(`${what} did not answer JSON`, 'transient_error');
  }
}

/** The server's error text: OpenAI's `{ error: { message } }`, llama.cpp's and vLLM's variants, or the raw body. */
function serverErrorText(body: string, status: number): string {
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

/** Token counts where the server reports them (some report only part; the total is then the sum). */
function usageOf(value: unknown): Usage | null {
  const u = value as Partial<Record<keyof Usage, unknown>> | null | undefined;
  if (typeof u?.prompt_tokens !== 'number' && typeof u?.completion_tokens !== 'number') return null;
  const prompt = typeof u.prompt_tokens === 'number' ? u.prompt_tokens : 0;
  const completion = typeof u.completion_tokens === 'number' ? u.completion_tokens : 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: typeof u.total_tokens === 'number' ? u.total_tokens : prompt + completion,
  };
}

/**
 * One chat completion through the connector's network policy. Fails with a ChatCompletionHttpError on an HTTP
 * error (after the retries), a ConnectorError otherwise, or the signal's reason when it aborts.
 */
export async function chatCompletion(
  config: Record<string, unknown>,
  request: ChatCompletionRequest,
  signal?: AbortSignal,
  options: ChatCompletionOptions = {},
): Promise<ChatCompletionResult> {
  const cfg = parseOpenAiConfig(config);
  const settings = httpSettings(cfg);
  const session = new HttpSession(
    options.maxRetries === undefined ? settings : { ...settings, max_retries: options.maxRetries },
  );
  const body = {
    model: request.model ?? cfg.model,
    messages: request.messages,
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.max_tokens === undefined ? {} : { max_tokens: request.max_tokens }),
    ...(request.response_format === undefined ? {} : { response_format: request.response_format }),
  };
  const res = await session
    .request('POST', resolveUrl(session.cfg, '/chat/completions'), JSON.stringify(body), signal, {
      maxBodyBytes: ANSWER_MAX_BYTES,
    })
    .catch((err: unknown) => {
      throw err instanceof HttpStatusError
        ? new ChatCompletionHttpError(err.status, serverErrorText(err.responseBody, err.status), err)
        : err;
    });
  const answer = parseBody(res.body, 'the chat completions endpoint') as ChatCompletionBody;
  const choice = answer.choices?.[0];
  if (!choice || typeof choice.message?.content !== 'string') {
    throw new ConnectorError('the chat completion answer has no message content', 'transient_error');
  }
  return {
    content: choice.message.content,
    model: typeof answer.model === 'string' && answer.model !== '' ? answer.model : body.model,
    finish_reason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    usage: usageOf(answer.usage),
  };
}

/** The ids of the models the endpoint offers. */
export async function listModels(cfg: OpenAiConfig, signal?: AbortSignal): Promise<string[]> {
  const session = new HttpSession({ ...httpSettings(cfg), max_retries: 0 });
  const res = await session.request('GET', resolveUrl(session.cfg, '/models'), undefined, signal, {
    maxBodyBytes: ANSWER_MAX_BYTES,
  });
  const answer = parseBody(res.body, 'the models endpoint') as { data?: { id?: unknown }[] };
  if (!Array.isArray(answer.data)) throw new ConnectorError('the models answer has no data list', 'config_error');
  return answer.data.map((m) => m.id).filter((id): id is string => typeof id === 'string');
}
