import { z } from 'zod';
import { descriptionSchema, idFilterSchema, idRefSchema, jsonObjectSchema, nameSchema } from './common.js';
import { pageQueryShape } from '../pagination.js';

/** The DAG's shape is checked by @conduit/dag (checkDagShape) where the pipeline is stored. */
export const pipelineCreateSchema = z.strictObject({
  name: nameSchema,
  description: descriptionSchema.optional(),
  dag: jsonObjectSchema,
  project_id: idRefSchema.nullable().optional(),
});
export type PipelineCreate = z.infer<typeof pipelineCreateSchema>;

/** PUT replaces name, description, dag and project_id; the version goes up by one. */
export const pipelineUpdateSchema = pipelineCreateSchema;
export type PipelineUpdate = PipelineCreate;

/**
 * Validate Pipeline's optional body: with `dag`, that draft is validated by the rules of the saved one and nothing is
 * stored (the console checks a DAG as it is typed); without it, the saved DAG is validated and the result stored.
 */
export const pipelineValidateSchema = z.strictObject({ dag: jsonObjectSchema.optional() });
export type PipelineValidateBody = z.infer<typeof pipelineValidateSchema>;

export const pipelineListQuerySchema = z.strictObject({
  ...pageQueryShape,
  project_id: idFilterSchema('project').optional(),
});
export type PipelineListQuery = z.infer<typeof pipelineListQuerySchema>;

export interface ValidationIssue {
  code: string;
  message: string;
  node_id?: string;
  edge?: { from: string; to: string };
  path?: string;
  cycle?: string[];
}

export interface PipelineValidation {
  valid: boolean;
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
  execution_order: string[][];
  validated_at: string;
}

export type PipelineStatus = 'valid' | 'invalid';

export interface Pipeline {
  id: string;
  project_id: string | null;
  name: string;
  description: string | null;
  dag: Record<string, unknown>;
  version: number;
  status: PipelineStatus;
  validation: PipelineValidation;
  created_at: string;
  updated_at: string;
}
