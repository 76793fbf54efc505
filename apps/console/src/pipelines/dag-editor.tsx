// The DAG's JSON, editable: its shape is checked in the browser as it is typed, the draft is validated by the API
// once typing pauses (nothing is stored; its errors and levels go under the editor and, through onDraftValidated,
// onto the graph), and Save stores a new version with its validation.
import type { Dag, Pipeline, PipelineValidation } from '@conduit/sdk';
import { useEffect, useMemo, useState } from 'react';
import { useSession } from '../session/session-context.js';
import { describeError } from '../ui/states.js';
import { readDraft } from './dag-shape.js';
import { DraftFindings } from './draft-findings.js';
import { useDraftValidation } from './use-draft-validation.js';

/** How long typing may pause before the shape's problems are listed: long enough not to flag every half-typed key. */
const CHECK_AFTER_MS = 300;

/** A draft as the API validated it, for the graph; undefined when the graph should show the saved version. */
export type ValidatedDraft = { dag: Dag; validation: PipelineValidation } | undefined;

export function DagEditor({
  pipeline,
  onSaved,
  onDraftValidated,
}: {
  pipeline: Pipeline;
  onSaved: (saved: Pipeline) => void;
  onDraftValidated: (draft: ValidatedDraft) => void;
}) {
  const { client } = useSession();
  const [text, setText] = useState(() => JSON.stringify(pipeline.dag, null, 2));
  /** The text of the version saved last: it needs no validating, the pipeline carries its validation. */
  const [savedText, setSavedText] = useState(text);
  const parsed = useMemo(() => readDraft(text), [text]);
  const [shape, setShape] = useState(parsed);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const check = useDraftValidation(pipeline.id, text === savedText ? 'saved' : parsed.ok ? parsed.dag : 'unreadable');
  const { answer } = check;

  useEffect(() => {
    const timer = setTimeout(() => setShape(parsed), CHECK_AFTER_MS);
    return () => clearTimeout(timer);
  }, [parsed]);

  useEffect(() => {
    onDraftValidated(answer?.kind === 'validated' ? { dag: answer.dag, validation: answer.validation } : undefined);
    // Reported when the answer changes; the page passes a state setter.
  }, [answer]);

  const save = () => {
    const current = readDraft(text);
    setShape(current);
    if (!current.ok) return;
    const sentText = text;
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
          setSavedText(sentText);
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
        aria-invalid={!shape.ok}
        aria-describedby="dag-json-check"
      />
      <div id="dag-json-check" aria-live="polite">
        {shape.ok ? (
          <p className="help">
            Shape OK ({shape.dag.nodes.length} nodes, {shape.dag.edges.length} edges).{' '}
            {text === savedText
              ? 'This is the saved version.'
              : 'The API validates the draft as you type; Save stores it as a new version.'}
          </p>
        ) : (
          <ul className="field-error" aria-label="Problems with the DAG's shape">
            {shape.problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        )}
        {text !== savedText && <DraftFindings answer={answer} pending={check.pending} />}
        {notice && <p>{notice}</p>}
      </div>
      <div className="toolbar">
        <button type="button" onClick={save} disabled={busy || !shape.ok}>
          {busy ? 'Saving…' : 'Save and validate'}
        </button>
        {failure && <span role="alert">{failure}</span>}
      </div>
    </section>
  );
}
