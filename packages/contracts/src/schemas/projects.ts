import { z } from 'zod';
import { descriptionSchema, nameSchema } from './common.js';
import { pageQueryShape } from '../pagination.js';

export const projectCreateSchema = z.strictObject({
  name: nameSchema,
  description: descriptionSchema.optional(),
  template: z.string().min(1).max(100).nullable().optional(),
});
export type ProjectCreate = z.infer<typeof projectCreateSchema>;

/** PUT replaces every mutable field; the template cannot change. */
export const projectUpdateSchema = z.strictObject({
  name: nameSchema,
  description: descriptionSchema.optional(),
});
export type ProjectUpdate = z.infer<typeof projectUpdateSchema>;

export const projectListQuerySchema = z.strictObject({ ...pageQueryShape });
export type ProjectListQuery = z.infer<typeof projectListQuerySchema>;

export interface Project {
  id: string;
  name: string;
  description: string | null;
  template: string | null;
  created_at: string;
  updated_at: string;
}

export interface TemplatePipeline {
  name: string;
  description: string;
}

export interface Template {
  name: string;
  description: string;
  pipelines: TemplatePipeline[];
}
