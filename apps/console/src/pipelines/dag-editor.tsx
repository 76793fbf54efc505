// The DAG's JSON, editable: its shape is checked as it is typed (debounced), Save stores a new version, and the
// validate endpoint's answer for it comes back with the saved pipeline. The API has no validate-without-saving
// endpoint (POST /v2/pipelines/{id}/validate takes no body), so rules beyond the shape are checked on Save.
import type { Pipeline } from '@conduit/sdk';
import { useEffect, useState } from 'react';
import { useSession } from '../session/session-context.js';
import { describeError } from '../ui/states.js';
import { readDraft, type DraftDag } from './dag-shape.js';

/** How long typing may pause before the draft is checked: long enough not to flag every half-typed key. */
const CHECK_AFTER_MS = 300;

export function DagEditor({ pipeline, onSaved }: { pipeline: Pipeline; onSaved: (saved: Pipeline) => void }) {
  const { client } = useSession();
  const [text, setText] = useState(() => JSON.stringify(pipeline.dag, null, 2));
  const [draft, setDraft] = useState<DraftDag>(() => readDraft(text));
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string>();
  const [notice, setNotice] = useState<string>();

  useEffect(() => {
    const timer = setTimeout(() => setDraft(readDraft(text)), CHECK_AFTER_MS);
    return () => clearTimeout(timer);
  }, [text]);

  const save = () => {
    const current = readDraft(text);
    setDraft(current);
    if (!current.ok) return;
    setBusy(true);
    setFailure(undefined);
    setNotice(undefined);
    client.pipelines
      .update(pipeline.id, {
        name: pipeline.name,
        description: pipeline.description,
        project_id: pipeline.project_id,
        dag: current.dag,
      })
      .then(
        (saved) => {
          onSaved(saved);
          setNotice(
            `Saved version ${saved.version}: ${saved.validation.valid ? 'valid' : `${saved.validation.errors.length} validation errors, shown on the graph`}.`,
          );
        },
        (err: unknown) => setFailure(describeError(err).message),
      )
      .finally(() => setBusy(false));
  };

  return (
    <section aria-labelledby="dag-editor-title" className="dag-editor">
      <h2 id="dag-editor-title">Edit the DAG</h2>
      <label htmlFor="dag-json">The DAG as JSON</label>
      <textarea
        id="dag-json"
        rows={14}
        spellCheck={false}
        value={text}
        onChange={(e) => setText(e.target.value)}
        aria-invalid={!draft.ok}
        aria-describedby="dag-json-check"
      />
      <div id="dag-json-check" aria-live="polite">
        {draft.ok ? (
          <p className="help">
            Shape OK ({draft.dag.nodes.length} nodes, {draft.dag.edges.length} edges). Connectors, configs and cycles
            are checked when you save: the API validates saved versions only.
          </p>
        ) : (
          <ul className="field-error" aria-label="Problems with the DAG's shape">
            {draft.problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        )}
        {notice && <p>{notice}</p>}
      </div>
      <div className="toolbar">
        <button type="button" onClick={save} disabled={busy || !draft.ok}>
          {busy ? 'Saving…' : 'Save and validate'}
        </button>
        {failure && <span role="alert">{failure}</span>}
      </div>
    </section>
  );
}
