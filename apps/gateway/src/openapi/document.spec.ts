import { CONNECTOR_SECRET_FIELDS, ERROR_STATUS, type ErrorCode } from '@conduit/contracts';
import { buildOpenApiDocument } from './document.js';
import { OPERATIONS } from './operations/index.js';

type Json = Record<string, unknown>;
const doc = buildOpenApiDocument() as unknown as {
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; responses: Record<string, Json>; parameters?: Record<string, Json> };
};

/** Follows a `$ref` within the document. */
function deref<T = Json>(value: unknown): T {
  const ref = (value as { $ref?: string }).$ref;
  if (!ref) return value as T;
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, key) => (node as Json)[key], doc) as T;
}

const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
);

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with every declared operation', () => {
    expect((doc as unknown as Json)['openapi']).toBe('3.1.0');
    expect(operations).toHaveLength(OPERATIONS.length);
  });

  it('every operation has an operationId, a summary, a description, a tag and examples', () => {
    for (const { name, op } of operations) {
      expect({
        name,
        operationId: typeof op['operationId'],
        summary: typeof op['summary'],
        description: typeof op['description'],
        tags: (op['tags'] as string[]).length,
      }).toEqual({
        name,
        operationId: 'string',
        summary: 'string',
        description: 'string',
        tags: 1,
      });
      const body = op['requestBody'] as { content: Record<string, Json> } | undefined;
      if (body)
        expect({
          name,
          examples: Object.keys(body.content['application/json']?.['examples'] ?? {}).length > 0,
        }).toEqual({ name, examples: true });
    }
  });

  it('every success answer with a body names its schema in components.schemas and shows an example', () => {
    for (const { name, op } of operations) {
      for (const [status, raw] of Object.entries(op['responses'] as Record<string, Json>)) {
        if (!status.startsWith('2')) continue;
        const response = deref<{ content?: Record<string, Json> }>(raw);
        if (status === '204') {
          expect({ name, content: response.content }).toEqual({ name, content: undefined });
          continue;
        }
        const json = response.content?.['application/json'];
        const ref = (json?.['schema'] as { $ref?: string } | undefined)?.$ref ?? '';
        expect({ name, status, ref: /^#\/components\/schemas\/[A-Za-z]+$/.test(ref) }).toEqual({
          name,
          status,
          ref: true,
        });
        expect(doc.components.schemas[ref.split('/').pop() ?? '']).toBeDefined();
        expect({ name, examples: Object.keys(json?.['examples'] ?? {}).length > 0 }).toEqual({ name, examples: true });
      }
    }
  });

  it('every parameter is typed: no empty schema', () => {
    let count = 0;
    for (const { name, op } of operations) {
      for (const raw of (op['parameters'] ?? []) as Json[]) {
        const param = deref<{ name: string; schema?: Json }>(raw);
        const schema = param.schema ?? {};
        count += 1;
        expect({
          name,
          param: param.name,
          typed: Object.keys(schema).length > 0 && ('type' in schema || 'anyOf' in schema || '$ref' in schema),
        }).toEqual({
          name,
          param: param.name,
          typed: true,
        });
      }
    }
    expect(count).toBeGreaterThan(60);
  });

  it("every problem example is the problem of its response's status (a 401 shows unauthenticated)", () => {
    for (const { name, op } of operations) {
      for (const [status, raw] of Object.entries(op['responses'] as Record<string, Json>)) {
        if (Number(status) < 400) continue;
        const media = deref<{ content: Record<string, Json> }>(raw).content['application/problem+json'];
        if (!media) continue;
        const examples = Object.values(
          media['examples'] as Record<string, { value: { status: number; code: ErrorCode } }>,
        );
        expect(examples.length).toBeGreaterThan(0);
        for (const { value } of examples) {
          expect({ name, status: value.status, of: ERROR_STATUS[value.code] }).toEqual({
            name,
            status: Number(status),
            of: Number(status),
          });
        }
      }
    }
    const unauthenticated = deref<{
      content: Record<string, { examples: Record<string, { value: { code: string } }> }>;
    }>(doc.components.responses['Unauthenticated']);
    expect(
      Object.values(unauthenticated.content['application/problem+json']?.examples ?? {}).map((e) => e.value.code),
    ).toEqual(['unauthenticated']);
  });

  it("the problem codes are the contracts' codes", () => {
    const code = (doc.components.schemas['Problem']?.['properties'] as Record<string, Json>)['code'];
    expect(code?.['enum']).toEqual(Object.keys(ERROR_STATUS));
  });

  it('public endpoints need no credential; every other operation needs one', () => {
    for (const { name, op } of operations) {
      const isPublic = name.endsWith('/healthz') || name.endsWith('/readyz');
      expect({ name, security: op['security'] }).toEqual({ name, security: isPublic ? [] : undefined });
    }
    expect((doc as unknown as Json)['security']).toEqual([{ ApiKey: [] }, { Bearer: [] }]);
  });

  it("the DAG's nodes are a union on `type`, each type with its config", () => {
    const node = doc.components.schemas['DagNode'] as {
      oneOf: unknown[];
      discriminator: { propertyName: string; mapping: Record<string, string> };
    };
    expect(node.discriminator.propertyName).toBe('type');
    expect(Object.keys(node.discriminator.mapping).sort()).toEqual(['decision', 'sink', 'source', 'sql', 'transform']);
    expect(node.oneOf).toHaveLength(5);
  });

  it("Create Connector's body has one variant per connector type, with that type's config schema", () => {
    const body = doc.components.schemas['ConnectorCreate'] as { discriminator: { mapping: Record<string, string> } };
    expect(Object.keys(body.discriminator.mapping).sort()).toEqual(Object.keys(CONNECTOR_SECRET_FIELDS).sort());
    const postgres = doc.components.schemas['PostgresConnectorConfig'] as {
      required: string[];
      properties: Record<string, Json>;
    };
    expect(postgres.required).toEqual(['host', 'database', 'user']);
    expect(postgres.properties['password']).toMatchObject({ writeOnly: true, 'x-secret': true });
  });

  it('the log stream is declared as text/event-stream beside the JSON page', () => {
    const logs = doc.paths['/v2/jobs/{job_id}/runs/{run_id}/logs']?.['get'] as {
      responses: Record<string, { content: Json }>;
    };
    expect(Object.keys(logs.responses['200']?.content ?? {})).toEqual(['application/json', 'text/event-stream']);
  });
});

describe("the operations' examples", () => {
  it('parse with the schemas they illustrate', () => {
    for (const op of OPERATIONS) {
      for (const example of Object.values(op.body?.examples ?? {})) {
        expect({ op: op.operationId, error: op.body?.schema.safeParse(example.value).error?.issues }).toEqual({
          op: op.operationId,
          error: undefined,
        });
      }
      for (const example of Object.values(op.response?.examples ?? {})) {
        expect({ op: op.operationId, error: op.response?.schema.safeParse(example.value).error?.issues }).toEqual({
          op: op.operationId,
          error: undefined,
        });
      }
    }
  });
});
