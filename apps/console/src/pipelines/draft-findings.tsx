// What the validate endpoint said of the editor's draft, under the editor: its errors and warnings with the node,
// edge or path each concerns (the graph shows them on the nodes and edges too), or its execution levels when valid.
import type { PipelineValidation } from '@conduit/sdk';
import type { DraftAnswer } from './use-draft-validation.js';

type Issue = PipelineValidation['errors'][number];

/** Where an issue sits, in the DAG's own terms: its path, else its node or edge, else the whole DAG. */
function whereOf(issue: Issue): string {
  if (issue.path) return issue.path;
  if (issue.edge) return `edge ${issue.edge.from} → ${issue.edge.to}`;
  if (issue.node_id) return `node ${issue.node_id}`;
  if (issue.cycle) return `cycle ${issue.cycle.join(' → ')}`;
  return 'the DAG';
}

function IssueList({ issues, label }: { issues: readonly Issue[]; label: string }) {
  return (
    <ul className="draft-issues" aria-label={label}>
      {issues.map((issue, index) => (
        <li key={index} data-issue-code={issue.code}>
          <code>{whereOf(issue)}</code> {issue.message}
        </li>
      ))}
    </ul>
  );
}

export function DraftFindings({ answer, pending }: { answer: DraftAnswer | undefined; pending: boolean }) {
  return (
    <div className="draft-findings">
      {pending && <p className="help">Validating the draft…</p>}
      {answer?.kind === 'failed' && <p className="field-error">Could not validate the draft: {answer.message}</p>}
      {answer?.kind === 'refused' && (
        <>
          <p className="field-error">Saving this draft would be refused: {answer.detail}</p>
          <ul className="draft-issues" aria-label="Problems with the draft">
            {answer.problems.map((problem, index) => (
              <li key={index}>
                <code>{problem.path}</code> {problem.message}
              </li>
            ))}
          </ul>
        </>
      )}
      {answer?.kind === 'validated' && <ValidatedDraft validation={answer.validation} />}
    </div>
  );
}

function ValidatedDraft({ validation }: { validation: PipelineValidation }) {
  const { errors, warnings, execution_order: levels } = validation;
  return (
    <>
      {validation.valid ? (
        <>
          <p className="draft-verdict valid">The draft is valid (not saved yet): {levels.length} execution levels.</p>
          <ol className="draft-levels" aria-label="Execution levels of the draft">
            {levels.map((ids, index) => (
              <li key={index}>
                Level {index + 1}: {ids.join(', ')}
              </li>
            ))}
          </ol>
        </>
      ) : (
        <>
          <p className="draft-verdict invalid">
            The draft has {errors.length} validation {errors.length === 1 ? 'error' : 'errors'}, also shown on the
            graph:
          </p>
          <IssueList issues={errors} label="Problems with the draft" />
        </>
      )}
      {warnings.length > 0 && <IssueList issues={warnings} label="Warnings about the draft" />}
    </>
  );
}
