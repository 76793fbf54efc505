/**
 * The one call an llm decision needs from a model server: an OpenAI-compatible chat completion. An interface, so
 * the decision protocol does not depend on which HTTP client speaks it.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** OpenAI's structured-output request: the answer must match `schema`. */
export interface JsonSchemaResponseFormat {
  type: 'json_schema';
  json_schema: { name: string; strict: boolean; schema: Record<string, unknown> };
}

export interface ChatRequest {
  messages: ChatMessage[];
  /** Absent: a server without structured outputs; the messages then ask for plain JSON. */
  response_format?: JsonSchemaResponseFormat;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatResult {
  /** The first choice's message content ('' when the server sent none). */
  content: string;
  /** The model that answered, as the server names it. */
  model: string;
  /** Null when the server reports no usage. */
  usage: ChatUsage | null;
}

/** The server answered with an HTTP error; `message` is the server's error text, never the api key. */
export class ChatHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ChatHttpError';
  }
}

export interface ChatClient {
  /** The configured model name. */
  readonly model: string;
  /**
   * Rejects with ChatHttpError on an HTTP error, with the signal's reason when it aborts, with a config_error
   * ConnectorError when the endpoint may not or cannot be reached (network policy, unknown host), else a network error.
   */
  complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResult>;
}
