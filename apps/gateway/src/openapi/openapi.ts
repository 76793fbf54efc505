import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

const PROBLEM_SCHEMA = {
  type: 'object',
  description: 'RFC 9457 problem document',
  required: ['type', 'title', 'status', 'code', 'detail', 'instance', 'request_id'],
  properties: {
    type: { type: 'string', examples: ['/problems/validation-failed'] },
    title: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string', examples: ['validation_failed'] },
    detail: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'code', 'message'],
        properties: { path: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
      },
    },
    instance: { type: 'string' },
    request_id: { type: 'string' },
    dependency: {
      type: 'string',
      enum: ['database', 'redis', 'service'],
      description: 'On a 503 service_unavailable: which kind of dependency was unreachable (never its address). Retry after Retry-After.',
    },
  },
};

const DESCRIPTION = `Conduit builds and runs data pipelines over an HTTP API.

Every /v2 operation takes \`X-API-Key: <key>\` or \`Authorization: Bearer <jwt>\`. Errors are RFC 9457 problem
documents (\`application/problem+json\`) with a stable \`code\`. Lists answer \`{ data, next_cursor }\`, newest first,
paged with \`limit\` (1-200, default 50) and \`cursor\`. Every POST accepts \`Idempotency-Key\`; PUT honours \`If-Match\`.
Rate limits are announced with \`RateLimit-Policy\` and \`RateLimit\` headers.`;

/** The OpenAPI 3.1 document, generated from the controllers, at /v2/openapi.json, and Swagger UI at /docs. */
export function setupOpenApi(app: NestFastifyApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Conduit API')
    .setDescription(DESCRIPTION)
    .setVersion('2')
    .setOpenAPIVersion('3.1.0')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key' }, 'ApiKey')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'Bearer')
    .addSecurityRequirements('ApiKey')
    .addSecurityRequirements('Bearer')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  document.components = { ...document.components, schemas: { ...document.components?.schemas, Problem: PROBLEM_SCHEMA } };
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'v2/openapi.json', customSiteTitle: 'Conduit API' });
}
