/**
 * The ChatClient of an `openai` connector: the connectors package's chatCompletion, so a decision's model calls go
 * through the same network policy, auth and secret scrubbing as the connector's Test Connection.
 */
import { ChatCompletionHttpError, chatCompletion, type OpenAiConfig } from '@conduit/connectors';
import { ChatHttpError, type ChatClient, type ChatRequest, type ChatResult } from './chat-client.js';

/** `config` is the connector's raw config (with its secrets), `parsed` the same config validated. */
export function connectorChatClient(config: Record<string, unknown>, parsed: OpenAiConfig): ChatClient {
  return {
    model: parsed.model,
    async complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResult> {
      try {
        const result = await chatCompletion(
          config,
          // temperature 0: the same input should route the same way.
          {
            messages: request.messages,
            temperature: 0,
            ...(request.response_format ? { response_format: { ...request.response_format } } : {}),
          },
          signal,
          // The exchange decides what an error means (fall back, re-ask without response_format), within its deadline.
          { maxRetries: 0 },
        );
        return { content: result.content, model: result.model, usage: result.usage };
      } catch (err) {
        throw err instanceof ChatCompletionHttpError ? new ChatHttpError(err.status, err.serverMessage) : err;
      }
    },
  };
}
