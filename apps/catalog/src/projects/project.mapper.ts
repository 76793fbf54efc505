import { Tagged, type Project } from '@conduit/contracts';
import { etagOf } from '@conduit/service-kit';
import type { ProjectEntity } from './project.entity.js';

export function toProject(row: ProjectEntity): Project {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    template: row.template,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function taggedProject(row: ProjectEntity): Tagged<Project> {
  return new Tagged(toProject(row), etagOf(row.id, row.revision, row.updatedAt.toISOString()));
}
