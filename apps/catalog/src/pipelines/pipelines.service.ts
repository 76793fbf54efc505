import { BatchedRowReader } from '../common/batched-row-reader.js';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager } from 'typeorm';
import type { Dag } from '@conduit/dag';
import {
  cursorLists,
  encodeCursor,
  AppError,
  isId,
  validationFailed,
  type Page,
  type Pipeline,
  type PipelineCreate,
  type PipelineListQuery,
  type PipelineUpdate,
  type PipelineSnapshot,
  type PipelineValidation,
  type Tagged,
  unknownProjectError,
  type IdempotencyKey,
} from '@conduit/contracts';
import { PipelineEntity } from './pipeline.entity.js';

import { taggedPipeline, toPipeline } from './pipeline.mapper.js';
import { dagShapeErrors, sameValidation, validatePipelineDag, validateWithConnectors } from './pipeline-validation.js';
import { dagSqlErrors } from './pipeline-sql.js';
import { PIPELINE_USAGE, type PipelineUsage } from './pipeline-usage.js';
import { NoRecordedSchemas, RECORDED_SCHEMAS, type RecordedSchemas } from './recorded-schemas.js';
import { hasBindableSql, type SchemaEvidence } from './pipeline-schemas.js';
import { projectRefErrors } from '../projects/project-refs.js';
import { CATALOG_CHANGES, NoCatalogChanges, type CatalogChanges } from '../common/catalog-changes.js';
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
  PAGE_BYTES,
  fitPage,
} from '@conduit/service-kit';

/** What a page of pipelines answers at most of their DAGs and validations (PipelinesService.list). */
export const PIPELINE_PAGE_BYTES = PAGE_BYTES;

const NAME_KEY = 'pipelines_project_name_key';
const PROJECT_FKEY = 'pipelines_project_fkey';

/** What a pipeline is made of, from a create or update body or from a template. */
export interface PipelineInput {
  name: string;
  description?: string | null | undefined;
  dag: Record<string, unknown>;
  project_id?: string | null | undefined;
}

@Injectable()
export class PipelinesService {
  /** Reads outside a transaction, batched with the others of the moment. */
  private readonly rows: BatchedRowReader<PipelineEntity>;

  constructor(
    private readonly ds: DataSource,
    @Inject(PIPELINE_USAGE) private readonly usage: PipelineUsage,
    @Inject(RECORDED_SCHEMAS) private readonly recordedSchemas: RecordedSchemas = new NoRecordedSchemas(),
    @Inject(CATALOG_CHANGES) private readonly changes: CatalogChanges = new NoCatalogChanges(),
  ) {
    this.rows = new BatchedRowReader(ds, PipelineEntity, 'pipeline');
  }

  async create(tenantId: string, body: PipelineCreate, ctx: CreateContext = {}): Promise<Tagged<Pipeline>> {
    // A retry with the key of a pipeline already made answers that pipeline as it is now.
    const row = await createOnce(ctx.idempotency, {
      find: (key) => this.ds.manager.findOneBy(PipelineEntity, { tenantId, idempotencyKey: key }),
      create: () =>
        this.writing(body, () =>
          this.ds.transaction(async (m) => {
            const created = await this.createWithin(m, tenantId, body, ctx.idempotency);
            assertBeforeDeadline(ctx);
            return created;
          }),
        ),
    });
    return taggedPipeline(row);
  }

  /**
   * Creates a pipeline inside the caller's transaction (project templates use it). Refuses a DAG of the wrong
   * shape or an unknown project (422); every other rule is stored as the pipeline's validation.
   */
  async createWithin(
    manager: EntityManager,
    tenantId: string,
    input: PipelineInput,
    idempotency?: IdempotencyKey,
  ): Promise<PipelineEntity> {
    await this.refuseMalformed(manager, tenantId, input.dag, input.project_id);
    const validation = await validatePipelineDag(manager, tenantId, input.dag as unknown as Dag);
    const now = new Date();
    const row = manager.create(PipelineEntity, {
      id: newId('pipeline'),
      tenantId,
      projectId: input.project_id ?? null,
      name: input.name,
      description: input.description ?? null,
      dag: input.dag,
      version: 1,
      status: validation.valid ? 'valid' : 'invalid',
      validation,
      createdAt: now,
      updatedAt: now,
      ...idempotencyColumns(idempotency),
    });
    await manager.insert(PipelineEntity, entityValues<PipelineEntity>(row));
    return row;
  }

  /**
   * A page of `limit` pipelines at most, and of PIPELINE_PAGE_BYTES of their DAGs and validations (its first one
   * whatever its size): a pipeline holds up to ~1 MiB of DAG and more of validation, so 200 of them made answers of
   * hundreds of MB through the catalog, Redis and the gateway. A page cut short answers a next_cursor like any other.
   * The sizes are read first (ids and lengths), then only the rows that fit.
   */
  async list(tenantId: string, query: PipelineListQuery, pageBytes = PIPELINE_PAGE_BYTES): Promise<Page<Pipeline>> {
    const after = cursorAfter(query.cursor, cursorLists.pipelines);
    const sizes = this.ds.manager
      .createQueryBuilder(PipelineEntity, 'p')
      .select('p.id', 'id')
      .addSelect('octet_length(p.dag::text) + octet_length(p.validation::text)', 'bytes')
      .where('p.tenant_id = :tenantId', { tenantId });
    if (after !== undefined) sizes.andWhere('p.id < :after', { after });
    if (query.project_id !== undefined) sizes.andWhere('p.project_id = :projectId', { projectId: query.project_id });
    const sized = await sizes
      .orderBy('p.id', 'DESC')
      .limit(query.limit + 1)
      .getRawMany<{ id: string; bytes: string | number }>();
    const { ids, more: cut } = fitPage(sized, query.limit, pageBytes);
    const rows =
      ids.length === 0
        ? []
        : await this.ds.manager.find(PipelineEntity, { where: { tenantId, id: In(ids) }, order: { id: 'DESC' } });
    const data = rows.map(toPipeline);
    const last = data.at(-1);
    const more = cut && last !== undefined;
    return { data, next_cursor: more ? encodeCursor({ after: last.id, list: cursorLists.pipelines }) : null };
  }

  async get(tenantId: string, id: string): Promise<Tagged<Pipeline>> {
    return taggedPipeline(await this.rows.get(tenantId, id));
  }

  /** PUT: replaces name, description, dag and project_id, and raises the version by one. */
  async update(tenantId: string, id: string, body: PipelineUpdate, ifMatch?: string): Promise<Tagged<Pipeline>> {
    // Asked before the transaction, so that no row stays locked while the scheduler is waited for.
    const schemas = await this.schemaEvidence(tenantId, id, body.dag as unknown as Dag);
    // A trigger after this change takes the new version (a new pipeline needs none of this: nobody holds it).
    const row = await this.changes.change(tenantId, () =>
      this.writing(body, () =>
        this.ds.transaction(async (m) => {
          const current = await this.load(m, tenantId, id, true);
          assertIfMatch(ifMatch, taggedPipeline(current).etag);
          await this.refuseMalformed(m, tenantId, body.dag, body.project_id);
          const validation = await validatePipelineDag(m, tenantId, body.dag as unknown as Dag, schemas);
          const changes = {
            name: body.name,
            description: body.description ?? null,
            dag: body.dag,
            projectId: body.project_id ?? null,
            version: current.version + 1,
            status: validation.valid ? ('valid' as const) : ('invalid' as const),
            validation,
            updatedAt: new Date(),
          };
          await m.update(PipelineEntity, { tenantId, id }, entityValues<PipelineEntity>(changes));
          return { ...current, ...changes };
        }),
      ),
    );
    return taggedPipeline(row);
  }

  /** With `ifMatch`, only the pipeline at that ETag: it is locked and compared first, so no update comes between. */
  async delete(tenantId: string, id: string, ifMatch?: string): Promise<null> {
    if (!isId('pipeline', id)) throw notFound('pipeline', id);
    if (await this.usage.isInUse(tenantId, id)) {
      throw new AppError('pipeline_in_use', `pipeline ${id} is used by a job; delete or change the job first`);
    }
    const result = await this.changes.change(tenantId, () =>
      this.ds.transaction(async (m) => {
        if (ifMatch !== undefined) assertIfMatch(ifMatch, taggedPipeline(await this.load(m, tenantId, id, true)).etag);
        return m.delete(PipelineEntity, { tenantId, id });
      }),
    );
    if (!result.affected) throw notFound('pipeline', id);
    return null;
  }

  /**
   * Re-runs validation (connectors may have changed since), stores it, and answers it. `schemas: 'skip'` leaves out
   * the check against the columns earlier runs recorded (a run about to start binds against the real ones).
   */
  async validate(tenantId: string, id: string, schemas: 'consult' | 'skip' = 'consult'): Promise<PipelineValidation> {
    const evidence: SchemaEvidence =
      schemas === 'consult'
        ? await this.schemaEvidence(tenantId, id, (await this.rows.get(tenantId, id)).dag as unknown as Dag)
        : { kind: 'none' };
    return this.ds.transaction(async (m) => {
      const current = await this.load(m, tenantId, id, true);
      const validation = await validatePipelineDag(m, tenantId, current.dag as unknown as Dag, evidence);
      await m.update(PipelineEntity, { tenantId, id }, { validation, status: validation.valid ? 'valid' : 'invalid' });
      return validation;
    });
  }

  /**
   * Validates a draft DAG of the pipeline by the rules of a saved one, and stores nothing: no version, no validation.
   * What an update would refuse (shape, unsafe SQL) is refused the same way (422), so a draft that passes can be saved.
   */
  async validateDraft(tenantId: string, id: string, dag: Record<string, unknown>): Promise<PipelineValidation> {
    // Another tenant's pipeline is as unknown as a missing one (404), whatever the draft.
    await this.rows.get(tenantId, id);
    await this.refuseMalformed(this.ds.manager, tenantId, dag);
    const schemas = await this.schemaEvidence(tenantId, id, dag as unknown as Dag);
    return validatePipelineDag(this.ds.manager, tenantId, dag as unknown as Dag, schemas);
  }

  /**
   * The pipeline as a run takes it. Validation runs again, since its connectors may have changed or gone; its result
   * is stored like any other validation, but only when it differs from the stored one: a pipeline triggered again and
   * again with nothing changed costs two reads, not a transaction and a write each time.
   */
  async snapshot(tenantId: string, id: string): Promise<PipelineSnapshot> {
    const row = await this.rows.get(tenantId, id);
    // Not against recorded schemas: the run binds its SQL against the sources' columns as they are now, and a source
    // whose table changed since its last run could otherwise never run again to record the change.
    const { validation, connectors } = await validateWithConnectors(
      this.ds.manager,
      tenantId,
      row.dag as unknown as Dag,
    );
    if (!sameValidation(row, validation)) {
      // Only over the version validated: an update committed since stored its own validation of its own DAG.
      await this.ds.manager.update(
        PipelineEntity,
        { tenantId, id, version: row.version },
        { validation, status: validation.valid ? 'valid' : 'invalid' },
      );
    }
    return {
      id: row.id,
      version: row.version,
      dag: row.dag,
      valid: validation.valid,
      errors: validation.errors.map((e) => ({ code: e.code, message: e.message })),
      connectors,
    };
  }

  /** What earlier runs recorded of the sources' columns; the scheduler is asked only when the DAG has SQL to bind. */
  private async schemaEvidence(tenantId: string, id: string, dag: Dag): Promise<SchemaEvidence> {
    if (!isId('pipeline', id) || dagShapeErrors(dag).length > 0 || !hasBindableSql(dag)) return { kind: 'none' };
    const reply = await this.recordedSchemas.latest(tenantId, id);
    return reply === null ? { kind: 'unavailable' } : { kind: 'recorded', reply };
  }

  private async load(manager: EntityManager, tenantId: string, id: string, forUpdate = false): Promise<PipelineEntity> {
    if (!isId('pipeline', id)) throw notFound('pipeline', id);
    const row = await manager.findOne(PipelineEntity, {
      where: { tenantId, id },
      ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!row) throw notFound('pipeline', id);
    return row;
  }

  /** A 422 listing every shape problem and an unknown project together. */
  private async refuseMalformed(
    manager: EntityManager,
    tenantId: string,
    dag: Record<string, unknown>,
    projectId?: string | null,
  ): Promise<void> {
    const shape = dagShapeErrors(dag);
    const errors = [...shape, ...(await projectRefErrors(manager, tenantId, projectId))];
    // SQL is checked only in a well-shaped DAG: its nodes and configs are then what they claim to be.
    if (shape.length === 0) errors.push(...(await dagSqlErrors(manager, tenantId, dag as unknown as Dag)));
    if (errors.length > 0) throw validationFailed(errors);
  }

  /** Maps the constraint violations of a write: a taken name, or a project deleted since it was checked. */
  private async writing<T>(input: PipelineInput, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err, NAME_KEY)) {
        throw new AppError(
          'name_taken',
          `a pipeline named "${input.name}" already exists${input.project_id ? ' in this project' : ' outside any project'}`,
        );
      }
      if (isForeignKeyViolation(err, PROJECT_FKEY) && input.project_id)
        throw validationFailed([unknownProjectError(input.project_id)]);
      throw err;
    }
  }
}
