// The OpenAPI document is good for a typed client: openapi-typescript turns it into types, and a whole flow written
// with openapi-fetch (flow/client-flow.ts) compiles under tsc --strict with the project's TypeScript.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildOpenApiDocument } from '@conduit/gateway/openapi';
import { runTsc } from '@conduit/testing';

const flowDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'flow');

describe('a client typed from the OpenAPI document', () => {
  beforeAll(async () => {
    // defaultNonNullable off: a field with a default is optional in a request (openapi-typescript's default makes
    // it required everywhere); the document's answers carry no defaults, so nothing is lost (docs/api-decisions.md).
    const ast = await openapiTS(JSON.parse(JSON.stringify(buildOpenApiDocument())), {
      alphabetize: true,
      defaultNonNullable: false,
    });
    mkdirSync(join(flowDir, 'generated'), { recursive: true });
    writeFileSync(join(flowDir, 'generated', 'api.d.ts'), astToString(ast));
  }, 60_000);

  it('compiles the flow create project -> connector -> pipeline -> job -> trigger run -> get run under --strict', async () => {
    expect(await runTsc(['-p', join(flowDir, 'tsconfig.json')])).toEqual({ code: 0, out: '' });
  }, 120_000);

  it('the flow takes no cast and no any', () => {
    const source = readFileSync(join(flowDir, 'client-flow.ts'), 'utf8').replace(/\/\/.*$|\/\*\*[^]*?\*\//gm, '');
    expect(source).not.toMatch(/\bas\s+(?!const\b)[A-Za-z{[(]/);
    expect(source).not.toMatch(/\bany\b/);
  });

  it("types the answers and the DAG's node union", () => {
    const types = readFileSync(join(flowDir, 'generated', 'api.d.ts'), 'utf8');
    expect(types).toMatch(/DagNode: components\["schemas"\]\["SourceNode"\] \| /);
    expect(types).toMatch(/createPipeline: \{/);
  });
});
