// Trigger a run, optionally with parameters (a JSON object that overrides the job's defaults for this run); the JSON
// is checked as it is typed, so a malformed one is never sent.
import type { Run } from '@conduit/sdk';
import { useState, type FormEvent } from 'react';
import { useSession } from '../session/session-context.js';
import { describeError } from '../ui/states.js';

export type Parameters = Record<string, unknown>;

/** The parameters the text says, or why it is not a JSON object. Empty text means none. */
export function parametersOf(text: string): { ok: true; value: Parameters } | { ok: false; error: string } {
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { ok: false, error: 'Parameters are a JSON object, e.g. {"day": "2026-11-24"}.' };
    return { ok: true, value: value as Parameters };
  } catch (error) {
    return { ok: false, error: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

export function TriggerForm({
  jobId,
  defaults,
  onTriggered,
}: {
  jobId: string;
  defaults: Parameters;
  onTriggered: (run: Run) => void;
}) {
  const { client } = useSession();
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string>();
  const parsed = parametersOf(text);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!parsed.ok) return;
    setBusy(true);
    setFailure(undefined);
    const body = Object.keys(parsed.value).length > 0 ? { parameters: parsed.value } : {};
    client.jobs.trigger(jobId, body).then(onTriggered, (err: unknown) => {
      setFailure(describeError(err).message);
      setBusy(false);
    });
  };

  return (
    <form className="form" onSubmit={submit} aria-label="Trigger a run">
      <div className="field">
        <label htmlFor="trigger-parameters">Parameters for this run (JSON, optional)</label>
        <textarea
          id="trigger-parameters"
          rows={3}
          spellCheck={false}
          value={text}
          placeholder={JSON.stringify(defaults)}
          onChange={(e) => setText(e.target.value)}
          aria-invalid={!parsed.ok}
          aria-describedby="trigger-parameters-help"
        />
        <p id="trigger-parameters-help" className={parsed.ok ? 'help' : 'field-error'}>
          {parsed.ok ? `Merged over the job's defaults: ${JSON.stringify(defaults)}.` : parsed.error}
        </p>
      </div>
      <div className="toolbar">
        <button type="submit" disabled={busy || !parsed.ok}>
          {busy ? 'Triggering…' : 'Trigger run'}
        </button>
        {failure && <span role="alert">{failure}</span>}
      </div>
    </form>
  );
}
