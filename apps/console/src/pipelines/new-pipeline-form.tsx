// A new pipeline in a project: a name and a starter DAG to edit (a source into a sink on one of the project's
// connectors), created and opened in its editor. The API stores a DAG that breaks rules as `invalid`, so a starter
// that still needs work can be saved and fixed there.
import { ConduitApiError, type Connector } from '@conduit/sdk';
import { useState, type FormEvent } from 'react';
import { useNavigation } from '../routing/router.js';
import { paths } from '../routing/routes.js';
import { useSession } from '../session/session-context.js';
import { describeError } from '../ui/states.js';
import { readDraft } from './dag-shape.js';

/** A source read into a sink, on the project's first connector when it has one. */
export function starterDag(connectors: readonly Connector[]): string {
  const connectorId = connectors[0]?.id ?? 'con_...';
  const dag = {
    nodes: [
      { id: 'source', type: 'source', config: { connector_id: connectorId, table: 'orders' } },
      { id: 'sink', type: 'sink', config: { connector_id: connectorId, table: 'orders_copy', mode: 'append' } },
    ],
    edges: [{ from: 'source', to: 'sink' }],
  };
  return JSON.stringify(dag, null, 2);
}

export function NewPipelineForm({ projectId, connectors }: { projectId: string; connectors: readonly Connector[] }) {
  const { client } = useSession();
  const { navigate } = useNavigation();
  const [name, setName] = useState('');
  const [text, setText] = useState(() => starterDag(connectors));
  const [problems, setProblems] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);

  const create = (event: FormEvent) => {
    event.preventDefault();
    const draft = readDraft(text);
    const found = [...(name.trim() === '' ? ['The name is required.'] : []), ...(draft.ok ? [] : draft.problems)];
    setProblems(found);
    if (found.length > 0 || !draft.ok) return;
    setBusy(true);
    client.pipelines.create({ name: name.trim(), project_id: projectId, dag: draft.dag }).then(
      (created) => navigate(paths.pipeline(created.id)),
      (err: unknown) => {
        const fields = err instanceof ConduitApiError ? err.errors : [];
        setProblems([describeError(err).message, ...fields.map((f) => `${f.path}: ${f.message}`)]);
        setBusy(false);
      },
    );
  };

  return (
    <form className="form" onSubmit={create} noValidate aria-labelledby="new-pipeline-title">
      <h2 id="new-pipeline-title">New pipeline</h2>
      <div className="field">
        <label htmlFor="new-pipeline-name">Pipeline name (required)</label>
        <input id="new-pipeline-name" value={name} maxLength={200} required onChange={(e) => setName(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="new-pipeline-dag">Starter DAG (JSON)</label>
        <textarea
          id="new-pipeline-dag"
          rows={8}
          spellCheck={false}
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-describedby="new-pipeline-dag-help"
        />
        <p id="new-pipeline-dag-help" className="help">
          A source into a sink to start from; you can edit and validate it on the pipeline&apos;s page.
        </p>
      </div>
      {problems.length > 0 && (
        <ul className="field-error" role="alert" aria-label="Problems creating the pipeline">
          {problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      )}
      <div className="toolbar">
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create pipeline'}
        </button>
      </div>
    </form>
  );
}
