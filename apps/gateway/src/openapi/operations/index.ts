import type { OperationSpec } from '../operation-spec.js';
import { accessOperations } from './access.js';
import { catalogOperations } from './catalog.js';
import { connectorOperations } from './connectors.js';
import { jobOperations } from './jobs.js';
import { monitoringOperations } from './monitoring.js';
import { webhookOperations } from './webhooks.js';

/** Every operation of the public API, in the document's order. */
export const OPERATIONS: readonly OperationSpec[] = [
  ...catalogOperations,
  ...connectorOperations,
  ...jobOperations,
  ...monitoringOperations,
  ...webhookOperations,
  ...accessOperations,
];

const BY_ID = new Map(OPERATIONS.map((op) => [op.operationId, op]));

/** The declaration of one operation; an unknown id is a programming error, found at boot. */
export function operationSpec(operationId: string): OperationSpec {
  const op = BY_ID.get(operationId);
  if (!op) throw new Error(`no OpenAPI operation ${operationId}`);
  return op;
}
