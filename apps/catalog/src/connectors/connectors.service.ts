import { BatchedRowReader } from '../common/batched-row-reader.js';
import { Inject, Injectable } from '@nestjs/common';
import { isDeepStrictEqual } from 'node:util';
import { DataSource, In, LessThan, type EntityManager, type FindOptionsWhere } from 'typeorm';
import {
  configWithDefaults,
  connectorTypes,
  getDriver,
  networkPolicyProblems,
  validateConnectorConfig,
} from '@conduit/connectors';
import {
  cursorLists,
  LIMITS,
  AppError,
  connectorCredentialErrors,
  isId,
  pageOf,
  validationFailed,
  type ConnectionTestResult,
  type Connector,
  type ConnectorCreate,
  type ConnectorListQuery,
  type ConnectorTypeDescription,
  type ConnectorUpdate,
  type FieldError,
  type Page,
  type ResolvedConnector,
  type Tagged,
  unknownProjectError,
} from '@conduit/contracts';
import { ConnectorEntity } from './connector.entity.js';
import { ConnectorSecrets } from './connector-secrets.js';
import { CATALOG_CHANGES, NoCatalogChanges, type CatalogChanges } from '../common/catalog-changes.js';
import { taggedConnector, toConnector } from './connector.mapper.js';
import { resendErrors } from './connector-config-checks.js';
import { unreadableSecretErrors, unreadableSecretsResult } from './unreadable-secrets.js';
import { projectRefErrors } from '../projects/project-refs.js';
import {
  newId,
  type CreateContext,
  assertBeforeDeadline,
  assertIfMatch,
  createOnce,
  cursorAfter,
  entityValues,
  idempotencyColumns,
  isForeignKeyViolation,
  isUniqueViolation,
  notFound,
  TenantSlots,
} from '@conduit/service-kit';

const NAME_KEY = 'connectors_tenant_name_key';
const PROJECT_FKEY = 'connectors_project_fkey';
/**
 * Connection tests of one tenant under way at once in a replica; more are a 429 (with Retry-After). api.md: a test
 * answers within 10 s, so a tenant's burst of tests against a host that never answers would otherwise hold every RPC
 * slot (CATALOG_RPC_CONCURRENCY, 64) for that long.
 */
export const TEST_CONNECTIONS_PER_TENANT = 4;

export interface ConnectorTypeList {
  data: ConnectorTypeDescription[];
}

function isKnownType(type: string): boolean {
  return getDriver(type) !== undefined;
}

@Injectable()
export class ConnectorsService {
  /** Reads outside a transaction, batched with the others of the moment. */
  private readonly rows: BatchedRowReader<ConnectorEntity>;

  /** A test may wait 10 s on the network: one tenant's tests must not hold every RPC slot of the catalog. */
  private readonly testSlots = new TenantSlots(TEST_CONNECTIONS_PER_TENANT);

  constructor(
    private readonly ds: DataSource,
    private readonly secrets: ConnectorSecrets,
    @Inject(CATALOG_CHANGES) private readonly changes: CatalogChanges = new NoCatalogChanges(),
  ) {
    this.rows = new BatchedRowReader(ds, ConnectorEntity, 'connector');
  }

  types(): ConnectorTypeList {
    return {
      data: connectorTypes().map((t) => ({
        type: t.type,
        category: t.category,
        description: t.description,
        roles: [...t.roles],
        config_schema: t.config_schema,
        secret_fields: [...t.secret_fields],
        location_fields: [...t.location_fields],
      })),
    };
  }

  async create(tenantId: string, body: ConnectorCreate, ctx: CreateContext = {}): Promise<Tagged<Connector>> {
    // A retry with the key of a connector already made answers that connector as it is now (secrets masked).
    const row = await createOnce(ctx.idempotency, {
      find: (key) => this.ds.manager.findOneBy(ConnectorEntity, { tenantId, idempotencyKey: key }),
      create: () => this.insertNew(tenantId, body, ctx),
    });
    return taggedConnector(row, this.secrets);
  }

  private async insertNew(tenantId: string, body: ConnectorCreate, ctx: CreateContext): Promise<ConnectorEntity> {
    const plain = this.secrets.fromTransit(tenantId, body.config);
    const errors: FieldError[] = isKnownType(body.type)
      ? [...validateConnectorConfig(body.type, plain), ...connectorCredentialErrors(body.type, plain)]
      : [
          {
            path: 'type',
            code: 'unknown_connector_type',
            message: `connector type "${body.type}" does not exist (see GET /v2/connector-types)`,
          },
        ];
    errors.push(...(await projectRefErrors(this.ds.manager, tenantId, body.project_id)));
    // An internal address or the platform's own database/Redis (issue 14, finding 2): 422 before anything is stored.
    if (errors.length === 0) errors.push(...(await networkPolicyProblems(body.type, body.config)));
    if (errors.length > 0) throw validationFailed(errors);
    const now = new Date();
    // The id exists before the secrets are sealed: they are bound to it.
    const id = newId('connector');
    const row = this.ds.manager.create(ConnectorEntity, {
      id,
      tenantId,
      projectId: body.project_id ?? null,
      name: body.name,
      type: body.type,
      config: this.secrets.seal(body.type, plain, { tenantId, connectorId: id }),
      status: 'untested',
      lastTest: null,
      revision: 1,
      createdAt: now,
      updatedAt: now,
      ...idempotencyColumns(ctx.idempotency),
    });
    // No held snapshot depends on it: only valid snapshots are held, and they name connectors that exist.
    await this.writing(body, () =>
      this.ds.transaction(async (m) => {
        await m.insert(ConnectorEntity, entityValues<ConnectorEntity>(row));
        assertBeforeDeadline(ctx);
      }),
    );
    return row;
  }

  async list(tenantId: string, query: ConnectorListQuery): Promise<Page<Connector>> {
    const after = cursorAfter(query.cursor, cursorLists.connectors);
    if (query.type !== undefined && !isKnownType(query.type)) {
      throw new AppError(
        'invalid_parameter',
        `query parameter type: unknown connector type "${query.type.slice(0, 64)}"`,
      );
    }
    const where: FindOptionsWhere<ConnectorEntity> = { tenantId };
    if (after !== undefined) where.id = LessThan(after);
    if (query.project_id !== undefined) where.projectId = query.project_id;
    if (query.type !== undefined) where.type = query.type;
    const rows = await this.ds.manager.find(ConnectorEntity, { where, order: { id: 'DESC' }, take: query.limit + 1 });
    return pageOf(
      rows.map((r) => toConnector(r, this.secrets)),
      query.limit,
      (c) => c.id,
      cursorLists.connectors,
    );
  }

  async get(tenantId: string, id: string): Promise<Tagged<Connector>> {
    return taggedConnector(await this.rows.get(tenantId, id), this.secrets);
  }

  /**
   * PUT: replaces name, config and project_id; `type` may be repeated, not changed. A changed config makes the
   * last test meaningless, so status goes back to `untested`.
   */
  async update(tenantId: string, id: string, body: ConnectorUpdate, ifMatch?: string): Promise<Tagged<Connector>> {
    const row = await this.changes.change(tenantId, () =>
      this.writing(body, () =>
        this.ds.transaction(async (m) => {
          const current = await this.load(m, tenantId, id, true);
          assertIfMatch(ifMatch, taggedConnector(current, this.secrets).etag);
          const errors: FieldError[] = [];
          if (body.type !== undefined && body.type !== current.type) {
            errors.push({
              path: 'type',
              code: 'immutable',
              message: `type cannot change (it is "${current.type}"); create a new connector instead`,
            });
          }
          const incoming = this.secrets.fromTransit(tenantId, body.config);
          const owner = { tenantId, connectorId: id };
          // A stored secret that does not open (copied from another connector, or under a key no longer configured)
          // cannot be kept with "********": it must be sent again, like a secret that would follow a move.
          const { config: stored, unreadable } = this.secrets.openReadable(current.type, current.config, owner);
          const config = this.secrets.merge(current.type, incoming, stored);
          errors.push(
            ...unreadableSecretErrors(unreadable, incoming),
            ...validateConnectorConfig(current.type, config),
            ...connectorCredentialErrors(current.type, config),
            ...resendErrors(current.type, incoming, stored),
            ...(await projectRefErrors(m, tenantId, body.project_id)),
          );
          if (errors.length === 0) errors.push(...(await networkPolicyProblems(current.type, config)));
          if (errors.length > 0) throw validationFailed(errors);
          // A default sent or left out is the same setting: only what the connector would use differently is a change.
          const configChanged = !isDeepStrictEqual(
            configWithDefaults(current.type, config),
            configWithDefaults(current.type, stored),
          );
          const changes = {
            name: body.name,
            projectId: body.project_id ?? null,
            config: this.secrets.seal(current.type, config, owner),
            revision: current.revision + 1,
            updatedAt: new Date(),
            ...(configChanged ? { status: 'untested' as const, lastTest: null } : {}),
          };
          await m.update(ConnectorEntity, { tenantId, id }, entityValues<ConnectorEntity>(changes));
          return { ...current, ...changes };
        }),
      ),
    );
    // After the commit: an executor that reloads on it must read the new config.
    await this.changes.connectorChanged({ tenant_id: tenantId, connector_id: id, version: row.revision });
    return taggedConnector(row, this.secrets);
  }

  /**
   * Pipelines that reference a deleted connector become invalid at their next validation (api.md is silent here).
   * With `ifMatch`, only the connector at that ETag: it is locked and compared first, so no update comes between.
   */
  async delete(tenantId: string, id: string, ifMatch?: string): Promise<null> {
    if (!isId('connector', id)) throw notFound('connector', id);
    const result = await this.changes.change(tenantId, () =>
      this.ds.transaction(async (m) => {
        if (ifMatch !== undefined) {
          assertIfMatch(ifMatch, taggedConnector(await this.load(m, tenantId, id, true), this.secrets).etag);
        }
        return m.delete(ConnectorEntity, { tenantId, id });
      }),
    );
    if (!result.affected) throw notFound('connector', id);
    await this.changes.connectorChanged({ tenant_id: tenantId, connector_id: id, version: null });
    return null;
  }

  /** Really connects with the stored config (no transaction is held meanwhile), then stores the outcome. */
  async test(tenantId: string, id: string): Promise<ConnectionTestResult> {
    const release = this.testSlots.take(tenantId);
    if (!release) {
      throw new AppError(
        'rate_limited',
        `${TEST_CONNECTIONS_PER_TENANT} connection tests of this tenant are under way; try again when one has ended`,
      );
    }
    try {
      return await this.testNow(tenantId, id);
    } finally {
      release();
    }
  }

  private async testNow(tenantId: string, id: string): Promise<ConnectionTestResult> {
    const current = await this.rows.get(tenantId, id);
    const driver = getDriver(current.type);
    if (!driver) throw new AppError('validation_failed', `connector type "${current.type}" is no longer available`);
    const { config, unreadable } = this.secrets.openReadable(current.type, current.config, {
      tenantId,
      connectorId: id,
    });
    // The tenant picks its own folder of the data root for file-based connectors.
    const result =
      unreadable.length > 0
        ? await unreadableSecretsResult(unreadable)
        : await driver.test(config, { timeoutMs: LIMITS.testConnectionMs, tenantId });
    // Increment in SQL: an update that landed during the test must not be overwritten with this read's revision.
    // A new revision, the config unchanged: a held snapshot naming the one before still gets this config (executors
    // use what they hold at that revision or newer), so neither the scheduler nor the executors are told.
    await this.ds.manager
      .createQueryBuilder()
      .update(ConnectorEntity)
      .set({
        ...entityValues<ConnectorEntity>({ status: result.ok ? 'ok' : 'failed', lastTest: result }),
        revision: () => 'revision + 1',
      })
      .where('tenant_id = :tenantId AND id = :id', { tenantId, id })
      .execute();
    return result;
  }

  /**
   * Configs as stored (secrets sealed: the executor opens them in memory right before use), for an executor about to
   * run a pipeline of this tenant. Only reachable over the internal transport (the gateway has no route to it); ids of
   * other tenants are simply not answered.
   */
  async resolve(tenantId: string, ids: string[]): Promise<ResolvedConnector[]> {
    const wanted = [...new Set(ids.filter((id) => isId('connector', id)))];
    if (wanted.length === 0) return [];
    const rows = await this.ds.manager.find(ConnectorEntity, { where: { tenantId, id: In(wanted) } });
    return rows.map((row) => ({ id: row.id, type: row.type, config: row.config, version: row.revision }));
  }

  private async load(
    manager: EntityManager,
    tenantId: string,
    id: string,
    forUpdate = false,
  ): Promise<ConnectorEntity> {
    if (!isId('connector', id)) throw notFound('connector', id);
    const row = await manager.findOne(ConnectorEntity, {
      where: { tenantId, id },
      ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!row) throw notFound('connector', id);
    return row;
  }

  private async writing<T>(
    body: { name: string; project_id?: string | null | undefined },
    write: () => Promise<T>,
  ): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err, NAME_KEY))
        throw new AppError('name_taken', `a connector named "${body.name}" already exists`);
      if (isForeignKeyViolation(err, PROJECT_FKEY) && body.project_id)
        throw validationFailed([unknownProjectError(body.project_id)]);
      throw err;
    }
  }
}
