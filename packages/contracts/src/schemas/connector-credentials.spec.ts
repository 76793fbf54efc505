import { connectorCredentialErrors, nodeCredentialIssues } from './connector-credentials.js';
import { webhookCreateSchema, webhookUpdateSchema } from './webhooks.js';

describe('connectorCredentialErrors', () => {
  it("points a URL's credential to the type's secret settings, or to the list of them when the type is not known", () => {
    const config = { base_url: 'https://me:Pw-1@api.example.com/', endpoint: 'https://s3.example.com/?sig=Pw-2' };
    const known = connectorCredentialErrors('http', config);
    expect(known).toEqual([
      {
        path: 'config.base_url',
        code: 'credentials_in_url',
        message:
          "must not carry credentials (user:password@): put the credential in the connector's secret settings (auth_header_value, bearer_token, password) instead",
      },
      expect.objectContaining({ path: 'config.endpoint', code: 'credentials_in_url' }),
    ]);
    expect(connectorCredentialErrors(undefined, config)[0]?.message).toContain('GET /v2/connector-types');
    expect(JSON.stringify(known)).not.toContain('Pw-');
  });

  it('refuses plain headers that carry a credential, naming them and never their values', () => {
    const errors = connectorCredentialErrors(undefined, {
      base_url: 'https://api.example.com/',
      headers: { Accept: 'application/json', Authorization: 'Bearer Pw-3', 'X-Auth-Token': 'Pw-4' },
    });
    expect(errors.map((e) => [e.path, e.code])).toEqual([
      ['config.headers.Authorization', 'credentials_in_header'],
      ['config.headers.X-Auth-Token', 'credentials_in_header'],
    ]);
    expect(errors[0]?.message).toContain('auth_header_value');
    expect(JSON.stringify(errors)).not.toContain('Pw-');
  });

  it('finds a URL at any depth, and leaves the secret fields (sealed before the body goes on) alone', () => {
    const errors = connectorCredentialErrors('http', {
      base_url: 'https://api.example.com/',
      password: 'a:b@c',
      pagination: { next: { url: 'https://api.example.com/next?private_key=Pw-6' } },
      mirrors: ['https://ok.example.com/', 'https://me:Pw-7@mirror.example.com/'],
    });
    expect(errors.map((e) => [e.path, e.code])).toEqual([
      ['config.pagination.next.url', 'credentials_in_url'],
      ['config.mirrors.1', 'credentials_in_url'],
    ]);
    expect(JSON.stringify(errors)).not.toContain('Pw-');
  });

  it('passes a config without credentials, and values that are no URL', () => {
    expect(
      connectorCredentialErrors('http', {
        base_url: 'https://api.example.com/v1?format=json',
        note: 'token=abc',
        headers: { Accept: 'text/csv' },
      }),
    ).toEqual([]);
  });
});

describe('webhook url', () => {
  it.each([['https://me:Pw-5@hooks.example.com/in'], ['https://hooks.example.com/in?token=Pw-6']])(
    'refuses %s with invalid_url, as the dispatcher does, so the gateway never sends it on',
    (url) => {
      for (const schema of [webhookCreateSchema, webhookUpdateSchema]) {
        const parsed = schema.safeParse({ url, events: ['job.failed'], secret: 'a-secret-of-16-chars' });
        expect(parsed.success).toBe(false);
        const issue = parsed.error?.issues.find((i) => i.path[0] === 'url');
        expect(issue).toMatchObject({ params: { code: 'invalid_url' } });
        expect(issue?.message).toMatch(/^must not carry credentials.*the secret signs deliveries/);
        expect(issue?.message).not.toContain('Pw-');
      }
    },
  );
});

describe('nodeCredentialIssues', () => {
  it('refuses user info in a node path, warns of a credential named in its query or params', () => {
    expect(nodeCredentialIssues({ path: 'http://u:p4ss@127.0.0.1:8099/x' }).errors).toEqual([
      expect.objectContaining({ path: 'config.path', code: 'credentials_in_url' }),
    ]);
    expect(nodeCredentialIssues({ path: 'https:\\\\u:p@host/x' }).errors).toHaveLength(1);
    const warned = nodeCredentialIssues({ path: '/items?access_token=abc&page=2', params: { api_key: 'k', page: 1 } });
    expect(warned.errors).toEqual([]);
    expect(
      warned.warnings.map((w) => [w.path, w.code, w.message.includes('abc') || w.message.includes("'k'")]),
    ).toEqual([
      ['config.path', 'credentials_in_query', false],
      ['config.params', 'credentials_in_query', false],
    ]);
    // An http sink writes to `table` when it has no `path`; a fragment can carry a token too.
    expect(nodeCredentialIssues({ table: 'https://u:p@api.example.com/ingest' }).errors).toHaveLength(1);
    expect(nodeCredentialIssues({ path: '/cb#access_token=abc' }).warnings).toHaveLength(1);
    expect(nodeCredentialIssues({ path: 'data/orders.csv', params: [1, 2], table: 'x' })).toEqual({
      errors: [],
      warnings: [],
    });
  });
});
