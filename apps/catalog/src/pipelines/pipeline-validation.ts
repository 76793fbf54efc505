import { isDeepStrictEqual } from 'node:util';
import type { EntityManager } from 'typeorm';
import {
  checkDagShape,
  referencedConnectorIds,
  validateDag,
  type ConnectorInfo,
  type Dag,
  type ValidationIssue,
} from '@conduit/dag';
import { getDriver } from '@conduit/connectors';
import {
  nodeCredentialIssues,
  type ConnectorVersion,
  type FieldError,
  type PipelineValidation,
} from '@conduit/contracts';
import { preparedQuery } from '@conduit/service-kit';
import { ConnectorEntity } from '../connectors/connector.entity.js';
import { schemaIssues, type SchemaEvidence } from './pipeline-schemas.js';

/** Shape problems of a DAG as 422 field errors (paths start at `dag`); empty when the shape is fine. */
export function dagShapeErrors(dag: unknown): FieldError[] {
  return checkDagShape(dag).map((p) => ({ path: p.path, code: p.code, message: p.message }));
}

/**
 * The tenant's connectors among `ids` (another tenant's are as unknown as missing ones). Fixed SQL rather than find(),
 * which built and parsed the same query again on every trigger's snapshot.
 */
async function tenantConnectors(
  manager: EntityManager,
  tenantId: string,
  ids: string[],
): Promise<{ id: string; type: string; revision: number }[]> {
  if (ids.length === 0) return [];
  const { driver } = manager.connection;
  const { schema, tableName } = manager.connection.getMetadata(ConnectorEntity);
  const table = schema ? `${driver.escape(schema)}.${driver.escape(tableName)}` : driver.escape(tableName);
  return preparedQuery(
    manager,
    `SELECT id, type, revision FROM ${table} WHERE tenant_id = $1 AND id = ANY($2::text[])`,
    [tenantId, ids],
  );
}

/** Credentials written into nodes' configs (nodeCredentialIssues), as issues of the nodes that hold them. */
function credentialIssues(dag: Dag): { errors: ValidationIssue[]; warnings: ValidationIssue[] } {
  const errors: ValidationIssue[] = [];
  const warnings: ValidationIssue[] = [];
  dag.nodes.forEach((node, i) => {
    const found = nodeCredentialIssues(node.config);
    const issue = (f: FieldError): ValidationIssue => ({
      code: f.code,
      message: f.message,
      node_id: node.id,
      path: `nodes[${i}].${f.path}`,
    });
    errors.push(...found.errors.map(issue));
    warnings.push(...found.warnings.map(issue));
  });
  return { errors, warnings };
}

/**
 * Runs every validation rule on a well-shaped DAG. The connectors it references are looked up in one query,
 * scoped to the tenant, so another tenant's connector is as unknown as a missing one. `schemas`: what earlier runs
 * recorded of the sources' columns, which transform and rules SQL is bound against (pipeline-schemas.ts).
 */
export async function validatePipelineDag(
  manager: EntityManager,
  tenantId: string,
  dag: Dag,
  schemas: SchemaEvidence = { kind: 'none' },
): Promise<PipelineValidation> {
  return (await validateWithConnectors(manager, tenantId, dag, schemas)).validation;
}

/**
 * validatePipelineDag, also answering the versions of the connectors it looked up (the tenant's only), which a run's
 * command carries so that executors holding those versions need not ask the catalog for them.
 */
export async function validateWithConnectors(
  manager: EntityManager,
  tenantId: string,
  dag: Dag,
  schemas: SchemaEvidence = { kind: 'none' },
): Promise<{ validation: PipelineValidation; connectors: ConnectorVersion[] }> {
  const rows = await tenantConnectors(manager, tenantId, referencedConnectorIds(dag));
  const connectors = new Map<string, ConnectorInfo>(
    rows.map((r) => {
      const driver = getDriver(r.type);
      const info: ConnectorInfo = { type: r.type, roles: driver?.info.roles ?? [] };
      if (driver?.nodeFields) info.nodeFields = driver.nodeFields;
      return [r.id, info];
    }),
  );
  const result = validateDag(dag, { connector: (id) => connectors.get(id) });
  const bound = await schemaIssues(dag, result.execution_order, schemas);
  const credentials = credentialIssues(dag);
  const errors = [...result.errors, ...credentials.errors, ...bound.errors];
  const validation = {
    valid: errors.length === 0,
    errors,
    warnings: [...result.warnings, ...credentials.warnings, ...bound.warnings],
    execution_order: result.execution_order,
    validated_at: new Date().toISOString(),
  };
  return { validation, connectors: rows.map((r) => ({ id: r.id, version: r.revision })) };
}

/**
 * Whether a pipeline's stored validation already says what `fresh` says (when it was made aside): then storing `fresh`
 * would change nothing but `validated_at`. Compared as JSON, the form the jsonb column holds.
 */
export function sameValidation(
  stored: { status: string; validation: PipelineValidation },
  fresh: PipelineValidation,
): boolean {
  const { validated_at: _storedAt, ...was } = stored.validation;
  const { validated_at: _freshAt, ...now } = fresh;
  return (
    stored.status === (fresh.valid ? 'valid' : 'invalid') &&
    isDeepStrictEqual(JSON.parse(JSON.stringify(was)), JSON.parse(JSON.stringify(now)))
  );
}
