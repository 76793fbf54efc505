// Names for the API's shapes, all taken from the generated document types: nothing here restates a field.
import type { components, operations } from './generated/api.js';

export type { components, operations, paths } from './generated/api.js';

type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];
export type FieldError = Schemas['FieldError'];
export type Project = Schemas['Project'];
export type Pipeline = Schemas['Pipeline'];
export type PipelineValidation = Schemas['PipelineValidation'];
export type Dag = Schemas['Dag'];
/** A DAG as a pipeline or a run answers it: as saved, a draft included (a valid one is also a `Dag`). */
export type StoredDag = Schemas['StoredDag'];
export type DagNode = Schemas['DagNode'];
export type Connector = Schemas['Connector'];
export type ConnectorType = Schemas['ConnectorType'];
export type ConnectionTestResult = Schemas['ConnectionTestResult'];
export type Job = Schemas['Job'];
export type Run = Schemas['Run'];
export type RunNode = Schemas['RunNode'];
export type RunDag = Schemas['RunDag'];
export type RunLogLine = Schemas['RunLogLine'];
export type Webhook = Schemas['Webhook'];
export type Delivery = Schemas['Delivery'];
export type Alert = Schemas['Alert'];
export type ApiKey = Schemas['ApiKey'];
export type Template = Schemas['Template'];
export type Metrics = Schemas['Metrics'];

/** The JSON body an operation takes. */
export type RequestBody<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
/** The query parameters an operation takes. */
export type QueryOf<Op extends keyof operations> = operations[Op]['parameters'] extends { query?: infer Q }
  ? NonNullable<Q>
  : never;

export type RunStatus = Run['status'];
/** A run in one of these states will not change again. */
export const FINAL_RUN_STATUSES: readonly RunStatus[] = Object.freeze(['succeeded', 'failed', 'canceled']);
export function isFinalRunStatus(status: RunStatus): boolean {
  return FINAL_RUN_STATUSES.includes(status);
}
