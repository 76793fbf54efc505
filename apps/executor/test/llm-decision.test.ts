// Decision nodes by llm through the engine: a real postgres source, a scripted OpenAI-compatible server, two branches.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { ResolvedConnector } from '@conduit/contracts';
import { answer, completion, startChatServer, type ScriptedChatServer } from './support/chat-server.js';
import { CONNECTOR_ID, nodeOf, runDag, type EngineRun } from './support/engine-harness.js';
import { connectorConfig, uniqueSchema, dropSchema, openSchema } from './support/postgres.js';

const API_KEY = 'sk-test-7f3a9c1e5b2d4068a1b3c5d7e9f01234';
const LLM_ID = 'con_llm';
const schema = uniqueSchema();
const pgConfig = connectorConfig(schema);
let db: pg.Client;
let chat: ScriptedChatServer;
let llm: ResolvedConnector;
const privateNetworks = process.env['CONNECTOR_ALLOW_PRIVATE_NETWORKS'];

beforeAll(async () => {
  // The scripted server is on loopback, which connectors may reach only when the operator allows it.
  process.env['CONNECTOR_ALLOW_PRIVATE_NETWORKS'] = 'true';
  db = await openSchema(schema);
  await db.query(`create table ${schema}.tickets (id integer primary key, subject text)`);
  await db.query(
    `insert into ${schema}.tickets values (1, 'Checkout is down for everyone'), (2, 'Typo on the pricing page'), (3, 'Invoice PDF missing')`,
  );
  chat = await startChatServer();
  llm = {
    id: LLM_ID,
    type: 'openai',
    config: { base_url: chat.baseUrl, api_key: API_KEY, model: 'scripted-model', timeout_ms: 20_000 },
  };
});

afterAll(async () => {
  await chat?.close();
  await dropSchema(db, schema);
  if (privateNetworks === undefined) delete process.env['CONNECTOR_ALLOW_PRIVATE_NETWORKS'];
  else process.env['CONNECTOR_ALLOW_PRIVATE_NETWORKS'] = privateNetworks;
});

const PROMPT =
  'Team {{params.team}}: {{row_count}} new tickets ({{columns}}). The first ones:\n{{rows}}\nHow urgent are they?';

function ticketDag(
  decision: Record<string, unknown> = {},
  query = 'select id, subject from tickets order by id',
): Record<string, unknown> {
  return {
    nodes: [
      { id: 'tickets', type: 'source', config: { connector_id: CONNECTOR_ID, query } },
      {
        id: 'route',
        type: 'decision',
        config: {
          strategy: 'llm',
          connector_id: LLM_ID,
          prompt: PROMPT,
          choices: ['urgent', 'routine'],
          default: 'routine',
          sample_rows: 2,
          ...decision,
        },
      },
      { id: 'page_oncall', type: 'transform', config: { sql: 'select * from route' } },
      { id: 'queue', type: 'transform', config: { sql: 'select * from route where id > 1' } },
    ],
    edges: [
      { from: 'tickets', to: 'route' },
      { from: 'route', to: 'page_oncall', when: 'urgent' },
      { from: 'route', to: 'queue', when: 'routine' },
    ],
  };
}

const run = (decision: Record<string, unknown> = {}, query?: string): Promise<EngineRun> =>
  runDag(ticketDag(decision, query), pgConfig, { connectors: [llm], parameters: { team: 'payments' } });

/** The api key is in no log line, no node output and no error of the run. */
function expectNoKey(result: EngineRun): void {
  const everything = JSON.stringify([result.lines, result.outcome, result.changes]);
  expect(everything).not.toContain(API_KEY);
  expect(everything).not.toContain(API_KEY.slice(3, 15));
}

const userMessage = (index: number): string => chat.calls[index]!.body.messages.find((m) => m.role === 'user')!.content;
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('decision by llm', () => {
  it('routes to the answered choice and skips the other branch; output records model, prompt hash, tokens, latency', async () => {
    chat.script(answer('urgent', 'checkout is down for everyone', 0.92));
    const result = await run();
    expect(result.outcome.error).toBeNull();
    expect(result.outcome.status).toBe('succeeded');
    expect(nodeOf(result, 'route')).toMatchObject({ status: 'succeeded', rows_in: 3, rows_out: 3 });
    expect(nodeOf(result, 'route').output).toEqual({
      choice: 'urgent',
      reason: 'checkout is down for everyone',
      confidence: 0.92,
      model: 'scripted-model-1',
      prompt_hash: sha256(userMessage(0)),
      tokens: { prompt: 30, completion: 12, total: 42 },
      latency_ms: expect.any(Number),
      fell_back: false,
      attempts: 1,
    });
    expect(nodeOf(result, 'page_oncall')).toMatchObject({ status: 'succeeded', rows_out: 3 });
    expect(nodeOf(result, 'queue').status).toBe('skipped');

    // The request: the model, the key as a bearer token, the choices in the system message and the JSON schema.
    expect(chat.calls).toHaveLength(1);
    const [call] = chat.calls;
    expect(call?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(call?.body.model).toBe('scripted-model');
    expect(call?.body.messages[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining('"urgent", "routine"'),
    });
    expect(call?.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'decision',
        strict: true,
        schema: expect.objectContaining({
          required: ['choice', 'reason', 'confidence'],
          properties: {
            choice: { type: 'string', enum: ['urgent', 'routine'] },
            reason: { type: 'string' },
            confidence: { type: 'number', minimum: 0, maximum: 1 },
          },
        }),
      },
    });
    // The prompt: the parameter, the row count, the columns and only the first sample_rows rows as JSON lines.
    const prompt = userMessage(0);
    expect(prompt).toMatch(/^Team payments: 3 new tickets \(id \w+, subject VARCHAR\)\. The first ones:\n/);
    expect(prompt).toContain(
      '{"id":1,"subject":"Checkout is down for everyone"}\n{"id":2,"subject":"Typo on the pricing page"}\nHow urgent',
    );
    expect(prompt).not.toContain('Invoice PDF missing');

    const routeLines = result.lines.filter((l) => l.node_id === 'route').map((l) => l.message);
    expect(routeLines.some((m) => m.includes(`prompt sha256 ${sha256(prompt)}`))).toBe(true);
    expect(
      routeLines.some(
        (m) => m.startsWith('llm request 1: answered') && m.includes('by scripted-model-1, tokens 30+12=42'),
      ),
    ).toBe(true);
    expect(routeLines.some((m) => m.startsWith('chose "urgent" after 1 request(s)'))).toBe(true);
    // The prompt holds data: logs carry its hash, never its rows.
    expect(routeLines.join('\n')).not.toContain('Typo on the pricing page');
    expectNoKey(result);
  });

  it('re-asks once after an unusable answer, with the bad answer and a correction; tokens add up', async () => {
    chat.script(
      answer('maybe', 'not sure', 0.5),
      completion('Sure! ```json\n{"choice": "Routine", "reason": "cosmetic issues only", "confidence": 0.8}\n```', {
        prompt_tokens: 50,
        completion_tokens: 20,
        total_tokens: 70,
      }),
    );
    const result = await run();
    expect(result.outcome.status).toBe('succeeded');
    expect(nodeOf(result, 'route').output).toMatchObject({
      choice: 'routine',
      reason: 'cosmetic issues only',
      confidence: 0.8,
      fell_back: false,
      attempts: 2,
      tokens: { prompt: 80, completion: 32, total: 112 },
    });
    expect(nodeOf(result, 'queue')).toMatchObject({ status: 'succeeded', rows_out: 2 });
    expect(nodeOf(result, 'page_oncall').status).toBe('skipped');
    const second = chat.calls[1]!.body.messages;
    expect(second).toHaveLength(4);
    expect(second[2]).toEqual({
      role: 'assistant',
      content: JSON.stringify({ choice: 'maybe', reason: 'not sure', confidence: 0.5 }),
    });
    expect(second[3]).toMatchObject({
      role: 'user',
      content: expect.stringContaining('"choice" "maybe" is not one of ["urgent","routine"]'),
    });
    expect(result.lines.some((l) => l.level === 'warn' && l.message.startsWith('llm: unusable answer'))).toBe(true);
    expectNoKey(result);
  });

  it('takes the default after two unusable answers', async () => {
    chat.script(completion('I think it is urgent.'), answer('maybe', 'not one of them', 0.9));
    const result = await run();
    expect(result.outcome.status).toBe('succeeded');
    expect(nodeOf(result, 'route').output).toMatchObject({
      choice: 'routine',
      confidence: null,
      fell_back: true,
      attempts: 2,
      reason: 'fell back to default: a second unusable answer ("choice" "maybe" is not one of ["urgent","routine"])',
    });
    expect(chat.calls).toHaveLength(2);
    expect(nodeOf(result, 'queue').status).toBe('succeeded');
    expect(nodeOf(result, 'page_oncall').status).toBe('skipped');
    expectNoKey(result);
  });

  it('falls back within the node timeout when the endpoint hangs', async () => {
    chat.script('hang');
    const started = Date.now();
    const result = await run({ timeout_seconds: 1.5 });
    const route = nodeOf(result, 'route');
    expect(result.outcome.status).toBe('succeeded');
    expect(route).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(route.output).toMatchObject({
      choice: 'routine',
      fell_back: true,
      reason: expect.stringMatching(/^fell back to default: no answer within \d+ ms$/),
    });
    expect(route.output?.['latency_ms']).toBeLessThan(1500);
    expect(Date.parse(route.finished_at!) - Date.parse(route.started_at!)).toBeLessThan(1500);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(nodeOf(result, 'queue').status).toBe('succeeded');
    expectNoKey(result);
  });

  it('takes the default on a 401, naming the connector in the reason and an error log, the key in none', async () => {
    chat.script({
      status: 401,
      body: {
        error: {
          message: `Incorrect API key provided: ${API_KEY}`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
    });
    const result = await run({ retries: 2 });
    expect(result.outcome.status).toBe('succeeded');
    // A failed answer (api.md): the default, asked once (a wrong key is not retried), the reason saying what to fix.
    expect(nodeOf(result, 'route')).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(nodeOf(result, 'route').output).toMatchObject({
      choice: 'routine',
      fell_back: true,
      attempts: 1,
      reason: 'fell back to default: connector "con_llm": the model server rejected its api_key (HTTP 401)',
    });
    expect(chat.calls).toHaveLength(1);
    expect(result.lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        node_id: 'route',
        message: expect.stringContaining('the model server rejected its api_key (HTTP 401)'),
      }),
    );
    expect(nodeOf(result, 'page_oncall').status).toBe('skipped');
    expect(nodeOf(result, 'queue').status).toBe('succeeded');
    expectNoKey(result);
  });

  it('takes the default when the network policy refuses the endpoint, without calling it', async () => {
    chat.script(answer('urgent', 'never asked', 1));
    // The policy covers every connector type: only the postgres source's address is allowed, and the endpoint is
    // another loopback address, refused before any connection.
    delete process.env['CONNECTOR_ALLOW_PRIVATE_NETWORKS'];
    process.env['CONNECTOR_ALLOWED_NETWORKS'] = '127.0.0.1/32';
    const baseUrl = llm.config['base_url'];
    llm.config['base_url'] = String(baseUrl).replace('127.0.0.1', '127.0.0.2');
    let result: EngineRun;
    try {
      result = await run();
    } finally {
      process.env['CONNECTOR_ALLOW_PRIVATE_NETWORKS'] = 'true';
      delete process.env['CONNECTOR_ALLOWED_NETWORKS'];
      llm.config['base_url'] = baseUrl;
    }
    expect(result.outcome.status).toBe('succeeded');
    expect(nodeOf(result, 'route').output).toMatchObject({
      choice: 'routine',
      fell_back: true,
      reason: expect.stringMatching(
        /^fell back to default: connector "con_llm": refused by the network policy: 127\.0\.0\.2 is a loopback address/,
      ),
    });
    expect(chat.calls).toHaveLength(0);
    expectNoKey(result);
  });

  it("takes the default on a server error, with the key scrubbed from the server's message", async () => {
    chat.script({ status: 503, body: { error: { message: `overloaded (request from key ${API_KEY})` } } });
    const result = await run();
    expect(nodeOf(result, 'route').output).toMatchObject({
      choice: 'routine',
      fell_back: true,
      attempts: 1,
      reason: 'fell back to default: HTTP 503: overloaded (request from key ********)',
    });
    expectNoKey(result);
  });

  it("masks the key where the provider echoes it in its answer's reason", async () => {
    chat.script(answer('urgent', `auth=Bearer ${API_KEY}`, 0.9));
    const result = await run();
    expect(nodeOf(result, 'route').output).toMatchObject({ choice: 'urgent', reason: 'auth=Bearer ********' });
    expectNoKey(result);
  });

  it('records a column named after the key masked and without a type (not the real column), and keeps the choice', async () => {
    chat.script(answer('urgent', 'fine', 0.9));
    const dag = ticketDag();
    (dag['nodes'] as { config: Record<string, unknown> }[])[0]!.config['query'] =
      `select id, subject, 1 as "${API_KEY}_x" from tickets order by id`;
    const result = await runDag(dag, pgConfig, { connectors: [llm], parameters: { team: 'payments' } });
    expect(result.outcome.status).toBe('succeeded');
    expect(nodeOf(result, 'tickets').columns).toEqual([
      expect.objectContaining({ name: 'id', type: 'INTEGER' }),
      expect.objectContaining({ name: 'subject', type: 'VARCHAR' }),
      expect.objectContaining({ name: '********_x', type: null }),
    ]);
    expect(nodeOf(result, 'route').output).toMatchObject({ choice: 'urgent' });
    expectNoKey(result);
  });

  it('asks for plain JSON when the server rejects response_format', async () => {
    chat.script(
      { status: 400, body: { error: { message: 'Unrecognized request argument supplied: response_format' } } },
      completion('{"choice":"urgent","reason":"outage","confidence":0.7} hope this helps'),
    );
    const result = await run();
    expect(nodeOf(result, 'route').output).toMatchObject({ choice: 'urgent', fell_back: false, attempts: 2 });
    expect(chat.calls[0]!.body.response_format).toBeDefined();
    expect(chat.calls[1]!.body).not.toHaveProperty('response_format');
    expect(chat.calls[1]!.body.messages).toEqual(chat.calls[0]!.body.messages);
    expect(chat.calls[1]!.body.messages[0]!.content).toContain('Answer with only a JSON object');
    expect(nodeOf(result, 'page_oncall').status).toBe('succeeded');
  });

  it('takes a choice answered without a confidence or a reason: only the choice must be one of them', async () => {
    chat.script(completion('{"choice": "urgent"}'));
    const result = await run();
    expect(nodeOf(result, 'route').output).toMatchObject({
      choice: 'urgent',
      reason: '',
      confidence: null,
      fell_back: false,
      attempts: 1,
    });
    expect(nodeOf(result, 'page_oncall').status).toBe('succeeded');
  });

  it('asks again for a confidence where min_confidence is set, then takes the default', async () => {
    chat.script(completion('{"choice": "urgent", "reason": "outage"}'), completion('{"choice": "urgent"}'));
    const result = await run({ min_confidence: 0.6 });
    expect(nodeOf(result, 'route').output).toMatchObject({
      choice: 'routine',
      confidence: null,
      fell_back: true,
      attempts: 2,
      reason: 'fell back to default: a second unusable answer ("confidence" must be a number from 0 to 1)',
    });
    expect(chat.calls[1]!.body.messages.at(-1)!.content).toContain('"confidence" must be a number from 0 to 1');
  });

  it("takes the default when the confidence is below min_confidence, keeping the model's confidence", async () => {
    chat.script(answer('urgent', 'might be an outage', 0.4));
    const result = await run({ min_confidence: 0.6 });
    expect(nodeOf(result, 'route').output).toMatchObject({
      choice: 'routine',
      confidence: 0.4,
      fell_back: true,
      reason:
        'fell back to default: confidence 0.4 is below min_confidence 0.6 (the model chose "urgent": might be an outage)',
    });
    expect(nodeOf(result, 'page_oncall').status).toBe('skipped');
  });

  it('fails clearly on an unknown placeholder that slipped past validation, without calling the model', async () => {
    chat.script(answer('urgent', 'never asked', 1));
    const result = await run({ prompt: 'Look at {{rowz}}' });
    expect(result.outcome.error).toMatchObject({
      node_id: 'route',
      code: 'invalid_node_config',
      message: expect.stringContaining('config.prompt has an unknown placeholder {{rowz}}'),
    });
    expect(chat.calls).toHaveLength(0);
  });

  it('fails clearly when the sample rows are too large to show, before reading them or calling the model', async () => {
    chat.script(answer('urgent', 'never asked', 1));
    // Two rows of 700,000 characters: 1.4 MB as JSON, over the 1 MiB the executor reads for a prompt. A small column
    // named `s`: the measure once read the row as the alias `s`, which that column shadowed.
    const result = await run({}, "select id as s, repeat('x', 700000) as subject from generate_series(1, 2) as id");
    expect(result.outcome.error).toMatchObject({
      node_id: 'route',
      message: expect.stringMatching(
        /the 2 sample rows the prompt may show take 14\d{5} bytes as JSON, more than 1048576/,
      ),
    });
    expect(chat.calls).toHaveLength(0);
  });

  it('fails clearly when the prompt would render past its limit, without calling the model', async () => {
    chat.script(answer('urgent', 'never asked', 1));
    // 200 KB of rows, shown 30 times: 6 MB, over the 4 Mi characters a prompt may take.
    const result = await run(
      { prompt: 'Rows: {{rows}}\n'.repeat(30) },
      "select id, repeat('y', 100000) as subject from generate_series(1, 2) as id",
    );
    expect(result.outcome.error).toMatchObject({
      node_id: 'route',
      message: expect.stringContaining('the prompt renders to more than 4194304 characters'),
    });
    expect(chat.calls).toHaveLength(0);
  });
});
