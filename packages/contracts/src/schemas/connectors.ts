import { z } from 'zod';
import { idFilterSchema, idRefSchema, jsonObjectSchema, nameSchema } from './common.js';
import { pageQueryShape } from '../pagination.js';

/** The config is validated against the type's JSON Schema by the catalog (GET /v2/connector-types). */
export const connectorCreateSchema = z.strictObject({
  name: nameSchema,
  type: z.string().min(1).max(64),
  config: jsonObjectSchema,
  project_id: idRefSchema.nullable().optional(),
});
export type ConnectorCreate = z.infer<typeof connectorCreateSchema>;

/** PUT replaces name, config and project_id; `type` may be repeated but not changed. A secret sent as "********" keeps its stored value. */
export const connectorUpdateSchema = z.strictObject({
  name: nameSchema,
  type: z.string().min(1).max(64).optional(),
  config: jsonObjectSchema,
  project_id: idRefSchema.nullable().optional(),
});
export type ConnectorUpdate = z.infer<typeof connectorUpdateSchema>;

export const connectorListQuerySchema = z.strictObject({
  ...pageQueryShape,
  project_id: idFilterSchema('project').optional(),
  type: z.string().min(1).max(64).optional(),
});
export type ConnectorListQuery = z.infer<typeof connectorListQuerySchema>;

export type ConnectorStatus = 'untested' | 'ok' | 'failed';
export type ErrorClass = 'config_error' | 'transient_error';

export interface ConnectionCheck {
  name: string;
  ok: boolean;
  latency_ms: number;
  message: string;
}

export interface ConnectionTestResult {
  ok: boolean;
  latency_ms: number;
  message: string;
  error_class: ErrorClass | null;
  checks: ConnectionCheck[];
  details: Record<string, unknown>;
  tested_at: string;
}

export interface Connector {
  id: string;
  project_id: string | null;
  name: string;
  type: string;
  config: Record<string, unknown>;
  status: ConnectorStatus;
  last_test: ConnectionTestResult | null;
  created_at: string;
  updated_at: string;
}

export interface ConnectorTypeDescription {
  type: string;
  category: string;
  description: string;
  roles: string[];
  config_schema: Record<string, unknown>;
  secret_fields: string[];
  /** Fields that say where it connects: changing one requires sending every secret again. */
  location_fields: string[];
}
