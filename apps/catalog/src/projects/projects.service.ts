import { BatchedRowReader } from '../common/batched-row-reader.js';
import { Injectable } from '@nestjs/common';
import { DataSource, LessThan, type EntityManager, type FindOptionsWhere } from 'typeorm';
import {
  cursorLists,
  AppError,
  isId,
  pageOf,
  unknownTemplateError,
  validationFailed,
  type Page,
  type Project,
  type ProjectCreate,
  type ProjectListQuery,
  type ProjectUpdate,
  type Tagged,
} from '@conduit/contracts';
import { ProjectEntity } from './project.entity.js';
import { taggedProject, toProject } from './project.mapper.js';
import { PipelinesService } from '../pipelines/pipelines.service.js';
import { findTemplate } from '../templates/template-catalogue.js';
import {
  newId,
  type CreateContext,
  assertBeforeDeadline,
  assertIfMatch,
  createOnce,
  cursorAfter,
  idempotencyColumns,
  isForeignKeyViolation,
  isUniqueViolation,
  notFound,
} from '@conduit/service-kit';

const NAME_KEY = 'projects_tenant_name_key';
/** The foreign keys that keep a project with pipelines or connectors from being deleted. */
const CONTENT_FKEYS = ['pipelines_project_fkey', 'connectors_project_fkey'];

@Injectable()
export class ProjectsService {
  /** Reads outside a transaction, batched with the others of the moment. */
  private readonly rows: BatchedRowReader<ProjectEntity>;

  constructor(
    private readonly ds: DataSource,
    private readonly pipelines: PipelinesService,
  ) {
    this.rows = new BatchedRowReader(ds, ProjectEntity, 'project');
  }

  /** Creates the project and, from a template, its pipelines, all in one transaction. */
  async create(tenantId: string, body: ProjectCreate, ctx: CreateContext = {}): Promise<Tagged<Project>> {
    const templateName = body.template ?? null;
    const template = templateName === null ? undefined : findTemplate(templateName);
    if (templateName !== null && !template) {
      throw validationFailed([unknownTemplateError(templateName)]);
    }
    // A retry with the key of a project already made answers that project as it is now.
    const row = await createOnce(ctx.idempotency, {
      find: (key) => this.ds.manager.findOneBy(ProjectEntity, { tenantId, idempotencyKey: key }),
      create: () =>
        this.nameGuarded(body.name, () =>
          this.ds.transaction(async (m) => {
            const now = new Date();
            const project = m.create(ProjectEntity, {
              id: newId('project'),
              tenantId,
              name: body.name,
              description: body.description ?? null,
              template: templateName,
              revision: 1,
              createdAt: now,
              updatedAt: now,
              ...idempotencyColumns(ctx.idempotency),
            });
            await m.insert(ProjectEntity, project);
            for (const p of template?.pipelines ?? []) {
              await this.pipelines.createWithin(m, tenantId, {
                name: p.name,
                description: p.description,
                dag: p.dag,
                project_id: project.id,
              });
            }
            assertBeforeDeadline(ctx);
            return project;
          }),
        ),
    });
    return taggedProject(row);
  }

  async list(tenantId: string, query: ProjectListQuery): Promise<Page<Project>> {
    const after = cursorAfter(query.cursor, cursorLists.projects);
    const where: FindOptionsWhere<ProjectEntity> = { tenantId };
    if (after !== undefined) where.id = LessThan(after);
    const rows = await this.ds.manager.find(ProjectEntity, { where, order: { id: 'DESC' }, take: query.limit + 1 });
    return pageOf(rows.map(toProject), query.limit, (p) => p.id, cursorLists.projects);
  }

  async get(tenantId: string, id: string): Promise<Tagged<Project>> {
    return taggedProject(await this.rows.get(tenantId, id));
  }

  /** PUT: name and description are replaced (an absent description becomes null); the template stays. */
  async update(tenantId: string, id: string, body: ProjectUpdate, ifMatch?: string): Promise<Tagged<Project>> {
    const row = await this.nameGuarded(body.name, () =>
      this.ds.transaction(async (m) => {
        const current = await this.load(m, tenantId, id, true);
        assertIfMatch(ifMatch, taggedProject(current).etag);
        const changes = {
          name: body.name,
          description: body.description ?? null,
          revision: current.revision + 1,
          updatedAt: new Date(),
        };
        await m.update(ProjectEntity, { tenantId, id }, changes);
        return { ...current, ...changes };
      }),
    );
    return taggedProject(row);
  }

  /**
   * Refused while pipelines or connectors belong to the project; the foreign keys decide, so a racing create cannot
   * slip in. With `ifMatch`, only the project at that ETag: it is locked and compared first, so no update comes between.
   */
  async delete(tenantId: string, id: string, ifMatch?: string): Promise<null> {
    if (!isId('project', id)) throw notFound('project', id);
    try {
      const result = await this.ds.transaction(async (m) => {
        if (ifMatch !== undefined) assertIfMatch(ifMatch, taggedProject(await this.load(m, tenantId, id, true)).etag);
        return m.delete(ProjectEntity, { tenantId, id });
      });
      if (!result.affected) throw notFound('project', id);
      return null;
    } catch (err) {
      if (CONTENT_FKEYS.some((key) => isForeignKeyViolation(err, key))) {
        throw new AppError(
          'project_not_empty',
          `project ${id} still has pipelines or connectors; delete or move them first`,
        );
      }
      throw err;
    }
  }

  private async load(manager: EntityManager, tenantId: string, id: string, forUpdate = false): Promise<ProjectEntity> {
    if (!isId('project', id)) throw notFound('project', id);
    const row = await manager.findOne(ProjectEntity, {
      where: { tenantId, id },
      ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!row) throw notFound('project', id);
    return row;
  }

  /** A taken name shows up as the unique violation: concurrent creates of one name cannot both pass. */
  private async nameGuarded<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err, NAME_KEY))
        throw new AppError('name_taken', `a project named "${name}" already exists`);
      throw err;
    }
  }
}
