import { Module } from '@nestjs/common';
import { RunSchemasController } from './run-schemas.controller.js';

/** What runs recorded about a pipeline's sources' columns, for the catalog's validation. */
@Module({ controllers: [RunSchemasController] })
export class RunSchemasModule {}
