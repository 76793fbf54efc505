import {
  AppError,
  alertListQuerySchema,
  apiKeyListQuerySchema,
  connectorListQuerySchema,
  cursorKeys,
  cursorLists,
  decodeCursor,
  deliveryListQuerySchema,
  encodeCursor,
  jobListQuerySchema,
  parseQueryOrThrow,
  pipelineListQuerySchema,
  projectListQuerySchema,
  RPC,
  runListQuerySchema,
  runLogQuerySchema,
  webhookListQuerySchema,
} from './index.js';

const listQueries = {
  projects: projectListQuerySchema,
  pipelines: pipelineListQuerySchema,
  connectors: connectorListQuerySchema,
  jobs: jobListQuerySchema,
  runs: runListQuerySchema,
  alerts: alertListQuerySchema,
  logs: runLogQuerySchema,
  webhooks: webhookListQuerySchema,
  deliveries: deliveryListQuerySchema,
  apiKeys: apiKeyListQuerySchema,
};

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('was not refused');
}

describe('limit', () => {
  describe.each(Object.entries(listQueries))('of %s', (_name, schema) => {
    it.each([
      ['1', 1],
      ['9', 9],
      ['50', 50],
      ['120', 120],
      ['200', 200],
    ])('takes %j as %i', (limit, value) => expect(parseQueryOrThrow(schema, { limit })).toEqual({ limit: value }));

    it('defaults to 50', () => expect(parseQueryOrThrow(schema, {})).toEqual({ limit: 50 }));

    it.each([
      '0x10',
      '1e1',
      '2e2',
      '0b11',
      '0o7',
      '+1',
      '-1',
      ' 1',
      '1 ',
      '010',
      '0',
      '00',
      '201',
      '1000',
      '200.0',
      '5.5',
      '1.',
      '.5',
      '',
      'Infinity',
      'NaN',
      '1_0',
      '٣',
      ['1', '2'],
    ])('refuses %j as a 400 invalid_parameter', (limit) => {
      const err = refusal(() => parseQueryOrThrow(schema, { limit }));
      expect(err.code).toBe('invalid_parameter');
      expect(err.message).toBe('query parameter limit: must be an integer from 1 to 200');
      expect(err.errors?.[0]?.path).toBe('limit');
    });
  });

  it('is the number the gateway parsed when it reaches a service over RPC', () => {
    const request = RPC['catalog.projects.list'].request;
    expect(request.parse({ query: { limit: 16 } })).toEqual({ query: { limit: 16 } });
    for (const limit of [0, 201, 16.5, '0x10', '1e1', null])
      expect(request.safeParse({ query: { limit } }).success).toBe(false);
  });
});

describe('cursor keys', () => {
  const ulid = '01JD3V6Y9ZQ8W1S3X5C7E9G2HK';
  const projects = cursorLists.projects;
  const cursorOf = (after: string, list: string) => encodeCursor({ after, list });
  const handMade = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

  /** A key each list issues, and keys of the right form for another list. */
  const issued: [string, string][] = [
    [cursorLists.projects, `prj_${ulid}`],
    [cursorLists.pipelines, `pln_${ulid}`],
    [cursorLists.connectors, `con_${ulid}`],
    [cursorLists.jobs, `job_${ulid}`],
    [cursorLists.alerts, `alt_${ulid}`],
    [cursorLists.webhooks, `whk_${ulid}`],
    [cursorLists.apiKeys, `key_${ulid}`],
    [cursorLists.runs(`job_${ulid}`), `run_${ulid}`],
    [cursorLists.runLogs(`run_${ulid}`), '42'],
    [cursorLists.deliveries(`whk_${ulid}`), `dlv_${ulid}`],
  ];

  it('are declared for every list', () =>
    expect(Object.keys(cursorKeys).sort()).toEqual(Object.keys(cursorLists).sort()));

  it.each(issued)('%s takes back the key it issues', (list, after) =>
    expect(decodeCursor(cursorOf(after, list), list)).toEqual({ after, list }),
  );

  it.each(issued)("%s refuses another list's keys", (list, own) => {
    for (const [, after] of issued) {
      if (after !== own) expect(decodeCursor(cursorOf(after, list), list)).toBeUndefined();
    }
  });

  it("refuses hand-made keys: another resource's id, a quote, a malformed or mis-cased id", () => {
    for (const after of [
      `pln_${ulid}`,
      "xx'",
      'prj_1',
      `prj_${ulid.toLowerCase()}`,
      `prj_${ulid}x`,
      `prj_${ulid.slice(1)}`,
      `PRJ_${ulid}`,
      `prj_${ulid.slice(0, -1)}U`,
      ' ',
      '',
    ])
      expect(decodeCursor(cursorOf(after, projects), projects)).toBeUndefined();
  });

  it("page a run's log lines on a non-negative decimal seq only", () => {
    const logs = cursorLists.runLogs(`run_${ulid}`);
    for (const after of ['0', '1', '42', String(Number.MAX_SAFE_INTEGER)])
      expect(decodeCursor(cursorOf(after, logs), logs)).toEqual({ after, list: logs });
    for (const after of ['-1', '01', '0x10', '1e3', '1.0', ' 1', '+1', '9007199254740993', '99999999999999999', 'NaN'])
      expect(decodeCursor(cursorOf(after, logs), logs)).toBeUndefined();
  });

  it('accept a well-formed id of any tenant (queries are scoped to the caller) and nothing else issued', () => {
    const after = `prj_${ulid}`;
    expect(decodeCursor(handMade({ after, list: projects }), projects)).toEqual({ after, list: projects });
    expect(decodeCursor(handMade({ list: projects, after }), projects)).toBeUndefined();
    expect(decodeCursor(handMade({ after, list: projects, tenant: 'tnt_1' }), projects)).toBeUndefined();
    expect(decodeCursor(`${handMade({ after, list: projects })}==`, projects)).toBeUndefined();
    expect(
      decodeCursor(Buffer.from(JSON.stringify({ after, list: projects }, null, 1)).toString('base64'), projects),
    ).toBe(undefined);
    expect(decodeCursor(handMade([after, projects]), projects)).toBeUndefined();
    expect(decodeCursor(handMade({ after: 5, list: cursorLists.runLogs(`run_${ulid}`) }), projects)).toBeUndefined();
    expect(decodeCursor(cursorOf(after, 'unknown-list'), 'unknown-list')).toBeUndefined();
  });
});
