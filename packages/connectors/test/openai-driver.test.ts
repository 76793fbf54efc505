import { randomUUID } from 'node:crypto';
import { ChatCompletionHttpError, chatCompletion, getDriver, type ConnectorDriver } from '../src/index.js';
import { expectUnreachable, failureOf } from './support/driver-checks.js';
import { checkNames, expectPassed } from './support/test-connection.js';
import { sendJson, startHttpFixture, type HttpFixture } from './support/http-fixture.js';
import { allowPrivateNetworks, setEnv } from './support/network-policy.js';

const driver = getDriver('openai') as ConnectorDriver;
const apiKey = `sk-${randomUUID()}`;
let api: HttpFixture;
let config: Record<string, unknown>;

// The test server listens on this machine, which the default network policy refuses.
allowPrivateNetworks();

beforeAll(async () => {
  api = await startHttpFixture();
  const authorized = (headers: Record<string, unknown>) => headers['authorization'] === `Bearer ${apiKey}`;
  api.route('/v1/models', (req, res) =>
    authorized(req.headers)
      ? sendJson(res, 200, {
          object: 'list',
          data: [
            { id: 'tiny-1', object: 'model' },
            { id: 'tiny-2', object: 'model' },
          ],
        })
      : sendJson(res, 401, {
          error: { message: `Incorrect API key provided: ${String(req.headers['authorization'])}` },
        }),
  );
  api.route('/v1/chat/completions', (req, res) => {
    if (!authorized(req.headers)) return sendJson(res, 401, { error: { message: 'bad key' } });
    const body = JSON.parse(req.body) as { model: string; messages: { content: string }[]; response_format?: unknown };
    sendJson(res, 200, {
      id: 'c1',
      model: body.model,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          message: {
            role: 'assistant',
            content: JSON.stringify({ echo: body.messages.at(-1)?.content, format: body.response_format ?? null }),
          },
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
  });
  // An overloaded server that echoes the key in its error text.
  api.route('/busy/chat/completions', (req, res) =>
    sendJson(
      res,
      503,
      { error: { message: `overloaded (key ${String(req.headers['authorization'])})` } },
      { 'retry-after': '0' },
    ),
  );
  config = { base_url: `${api.baseUrl}/v1`, api_key: apiKey, model: 'tiny-2', timeout_ms: 5000 };
});
afterAll(async () => {
  await api.close();
});

describe('openai Test Connection', () => {
  it('lists the models and finds the configured one', async () => {
    const result = await driver.test(config);
    expectPassed(result, ['resolve', 'network_policy', 'list_models', 'model']);
    expect(result.details).toMatchObject({ models: ['tiny-1', 'tiny-2'] });
    expect(driver.info.roles).toEqual(['llm']);
  });

  it('calls a model that is not offered a config_error', async () => {
    const result = await driver.test({ ...config, model: 'huge-9' });
    expect(result).toMatchObject({ ok: false, error_class: 'config_error' });
    expect(result.message).toBe('model "huge-9" is not offered (some that are: tiny-1, tiny-2)');
  });

  it('calls a wrong key a config_error and never shows it, even when the server echoes it', async () => {
    const wrong = `sk-${randomUUID()}`;
    const result = await driver.test({ ...config, api_key: wrong });
    expect(result).toMatchObject({ ok: false, error_class: 'config_error' });
    expect(checkNames(result)).toEqual(['resolve:ok', 'network_policy:ok', 'list_models:failed']);
    expect(result.message).toMatch(/HTTP 401/);
    expect(JSON.stringify(result)).not.toContain(wrong);
  });

  it('calls an unknown host a config_error and a closed port a transient_error, quickly', async () => {
    // Listing the models is the first request to the server.
    await expectUnreachable(
      driver,
      (host, port) => ({ ...config, base_url: `http://${host}:${port}/v1` }),
      'list_models',
    );
  });

  it('refuses loopback without the operator setting', async () => {
    const restore = setEnv({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: undefined });
    try {
      const result = await driver.test(config);
      expect(result).toMatchObject({
        ok: false,
        error_class: 'config_error',
        message: expect.stringMatching(/network policy/),
      });
    } finally {
      restore();
    }
  });
});

describe('chatCompletion', () => {
  it('posts the messages with the model and response_format and answers the content', async () => {
    const result = await chatCompletion(config, {
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'route this' },
      ],
      response_format: { type: 'json_object' },
      temperature: 0,
    });
    expect(result).toEqual({
      content: JSON.stringify({ echo: 'route this', format: { type: 'json_object' } }),
      model: 'tiny-2',
      finish_reason: 'stop',
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
  });

  it('fails with a config_error without the key in the message', async () => {
    const wrong = `sk-${randomUUID()}`;
    const err = await failureOf(
      chatCompletion({ ...config, api_key: wrong }, { messages: [{ role: 'user', content: 'x' }] }),
    );
    expect(err.errorClass).toBe('config_error');
    expect(err.message).not.toContain(wrong);
    expect(err).toBeInstanceOf(ChatCompletionHttpError);
    expect(err).toMatchObject({
      status: 401,
      serverMessage: 'bad key',
      message: 'the chat completions endpoint answered HTTP 401 (check the api_key): bad key',
    });
  });

  it("gives the status and the server's scrubbed error text; retries 5xx unless told not to", async () => {
    const busy = { ...config, base_url: `${api.baseUrl}/busy` };
    const attempt = async (options?: { maxRetries: number }) => {
      const before = api.requests.length;
      const err = await failureOf(
        chatCompletion(busy, { messages: [{ role: 'user', content: 'x' }] }, undefined, options),
      );
      return { err, requests: api.requests.length - before };
    };
    const once = await attempt({ maxRetries: 0 });
    expect(once.requests).toBe(1);
    expect(once.err).toBeInstanceOf(ChatCompletionHttpError);
    expect(once.err).toMatchObject({
      status: 503,
      errorClass: 'transient_error',
      serverMessage: 'overloaded (key Bearer ********)',
    });
    expect(JSON.stringify({ ...(once.err as object), message: (once.err as Error).message })).not.toContain(apiKey);
    const retried = await attempt();
    expect(retried.requests).toBe(3);
    expect(retried.err).toMatchObject({ status: 503 });
  });
});
