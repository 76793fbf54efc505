import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { buildOpenApiDocument } from './document.js';

/**
 * The OpenAPI 3.1 document, generated from the contracts (document.ts), at /v2/openapi.json, and Swagger UI at /docs.
 * @nestjs/swagger only serves them: it no longer builds the document from the controllers.
 */
export function setupOpenApi(app: NestFastifyApplication): void {
  // The generated document is OpenAPI 3.1; @nestjs/swagger types the 3.0 shape it serves as is.
  const document = buildOpenApiDocument() as unknown as OpenAPIObject;
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'v2/openapi.json', customSiteTitle: 'Conduit API' });
}
