// The field errors for a body field that names nothing of the caller's, one wording wherever they are found: by the
// owning service, or by the gateway when it lists them beside the body's other faults.
import type { FieldError } from './errors.js';

export function unknownProjectError(projectId: string): FieldError {
  return { path: 'project_id', code: 'unknown_project', message: `project ${projectId.slice(0, 64)} does not exist` };
}

export function unknownPipelineError(pipelineId: string): FieldError {
  return {
    path: 'pipeline_id',
    code: 'unknown_pipeline',
    message: `pipeline ${pipelineId.slice(0, 64)} does not exist`,
  };
}

export function unknownTemplateError(template: string): FieldError {
  return {
    path: 'template',
    code: 'unknown_template',
    message: `template "${template.slice(0, 200)}" does not exist (see GET /v2/templates)`,
  };
}
