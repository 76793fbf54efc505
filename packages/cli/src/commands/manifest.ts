// Pipelines as code: `conduit validate`, `conduit plan`, `conduit apply` on a conduit.yaml.
import type { Command } from 'commander';
import { clientOf, outputOf, resolveConnection, type GlobalOptions } from '../context.js';
import { loadManifest } from '../manifest/load.js';
import { pathText, type Manifest, type ManifestIssue } from '../manifest/model.js';
import { reconcile, type PlanStep } from '../manifest/reconcile.js';
import { validateManifest } from '../manifest/validate.js';
import { CliError, type Output } from '../output.js';

interface FileOptions extends GlobalOptions {
  file: string;
  updateSecrets?: boolean;
}

function issueText(file: string, issue: ManifestIssue): string {
  const at = issue.line !== undefined ? `${file}:${issue.line}:${issue.column ?? 1}` : file;
  const where = issue.path.length > 0 ? ` (${pathText(issue.path)})` : '';
  return `${at}: ${issue.severity}: ${issue.message}${where} [${issue.code}]`;
}

function printIssues(out: Output, file: string, issues: ManifestIssue[]): void {
  for (const issue of issues) {
    const text = issueText(file, issue);
    out.note(issue.severity === 'error' ? out.paint('red', text) : out.paint('yellow', text));
  }
}

/** The file checked offline; throws (listing every error with its line) when it cannot be applied. */
function checkedManifest(
  out: Output,
  file: string,
  missingEnv: 'error' | 'warning',
): { manifest: Manifest; issues: ManifestIssue[] } {
  const loaded = loadManifest(file, { env: process.env, missingEnv });
  const issues = validateManifest(loaded);
  const errors = issues.filter((i) => i.severity === 'error');
  if (errors.length > 0 || !loaded.manifest) {
    throw new CliError(
      'invalid_manifest',
      `${file} has ${errors.length} error${errors.length === 1 ? '' : 's'}`,
      errors.map((i) => issueText(file, i)),
    );
  }
  if (!out.json) printIssues(out, file, issues);
  return { manifest: loaded.manifest, issues };
}

const SYMBOL: Record<PlanStep['action'], string> = { create: '+', update: '~', unchanged: '=' };

function stepLine(out: Output, step: PlanStep, applied: boolean): string {
  const colour = step.action === 'create' ? 'green' : step.action === 'update' ? 'yellow' : 'gray';
  const verb = applied ? { create: 'created', update: 'updated', unchanged: 'unchanged' }[step.action] : step.action;
  const name = step.kind === 'project' ? step.name : `${step.project}/${step.name}`;
  const changes = step.changes.length > 0 ? ` (${step.changes.join(', ')})` : '';
  return out.paint(colour, `${SYMBOL[step.action]} ${step.kind.padEnd(9)} ${name}  ${verb}${changes}`);
}

function summary(steps: PlanStep[]): Record<PlanStep['action'], number> {
  const counts = { create: 0, update: 0, unchanged: 0 };
  for (const step of steps) counts[step.action]++;
  return counts;
}

export function registerManifest(program: Command): void {
  program
    .command('validate')
    .description('check a conduit.yaml offline (structure, DAG rules, references); errors name their line')
    .requiredOption('-f, --file <file>', 'the manifest', 'conduit.yaml')
    .action((_opts: FileOptions, cmd: Command) => {
      const opts = cmd.optsWithGlobals<FileOptions>();
      const out = outputOf(opts);
      const issues = validateManifest(loadManifest(opts.file, { env: process.env, missingEnv: 'warning' }));
      const errors = issues.filter((i) => i.severity === 'error').length;
      if (errors > 0) process.exitCode = 1;
      if (out.json) return out.document({ file: opts.file, valid: errors === 0, issues });
      printIssues(out, opts.file, issues);
      if (errors === 0)
        out.line(
          `${out.paint('green', '✔')} ${opts.file} is valid${issues.length > 0 ? ` (${issues.length} warning${issues.length === 1 ? '' : 's'})` : ''}`,
        );
      else out.note(`${errors} error${errors === 1 ? '' : 's'} in ${opts.file}`);
    });

  const planOrApply = (apply: boolean) => async (_opts: FileOptions, cmd: Command) => {
    const opts = cmd.optsWithGlobals<FileOptions>();
    const out = outputOf(opts);
    const { manifest } = checkedManifest(out, opts.file, 'error');
    const client = clientOf(resolveConnection(opts), out);
    const result = await reconcile(client, manifest, {
      apply,
      updateSecrets: opts.updateSecrets ?? false,
      onStep: (step) => out.line(stepLine(out, step, apply)),
    });
    const counts = summary(result.steps);
    if (result.invalidPipelines.length > 0) process.exitCode = 1;
    if (out.json)
      return out.document({
        file: opts.file,
        applied: apply,
        steps: result.steps,
        summary: counts,
        invalid_pipelines: result.invalidPipelines,
      });
    const total = `${counts.create} to create, ${counts.update} to update, ${counts.unchanged} unchanged`;
    out.line(
      apply ? `Applied: ${total.replace(/to create/, 'created').replace(/to update/, 'updated')}.` : `Plan: ${total}.`,
    );
    for (const pipeline of result.invalidPipelines) {
      out.note(out.paint('red', `pipeline ${pipeline.project}/${pipeline.name} is stored invalid:`));
      pipeline.errors.forEach((e) => out.note(out.paint('red', `  - ${e}`)));
    }
  };

  program
    .command('plan')
    .description('show what apply would change: create, update or unchanged for each resource')
    .requiredOption('-f, --file <file>', 'the manifest', 'conduit.yaml')
    .option('--update-secrets', 'count connectors with secrets as changed, to send their secrets again')
    .action(planOrApply(false));

  program
    .command('apply')
    .description(
      'create or update the projects, connectors, pipelines and jobs of a manifest (matched by name; project, ' +
        'connector and job names are unique per tenant, pipeline names per project)',
    )
    .requiredOption('-f, --file <file>', 'the manifest', 'conduit.yaml')
    .option('--update-secrets', 'send the secrets of every connector again (they cannot be compared)')
    .action(planOrApply(true));
}
