// Writes the OpenAPI document to a file (default openapi.json): `node dist/openapi/write-document.js [file]`.
// The linters (npm run lint:openapi) and the typed-client check read this file.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildOpenApiDocument } from './document.js';

const target = resolve(process.argv[2] ?? 'openapi.json');
writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
process.stdout.write(`${target}\n`);
