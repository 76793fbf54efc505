// One connector, new or existing: its config form generated from its type's JSON Schema, Save, and Test (each check
// with its latency). A new connector is created first; Test needs a saved one.
import {
  ConduitApiError,
  type ConnectionTestResult,
  type Connector,
  type ConnectorType,
  type RequestBody,
} from '@conduit/sdk';
import { useState, type FormEvent } from 'react';
import { ConfigFields } from '../connectors/config-fields.js';
import { configOf, fieldsOf, formValuesOf } from '../connectors/config-schema.js';
import { TestResult } from '../connectors/test-result.js';
import { Link, useNavigation } from '../routing/router.js';
import { paths } from '../routing/routes.js';
import { useSession } from '../session/session-context.js';
import { ErrorState, Loading, describeError } from '../ui/states.js';
import { useLoad } from '../ui/use-load.js';

export function ConnectorPage({ connectorId }: { connectorId?: string }) {
  const { client } = useSession();
  const loaded = useLoad(async () => {
    const [types, connector] = await Promise.all([
      client.connectors.types(),
      connectorId === undefined ? Promise.resolve(undefined) : client.connectors.get(connectorId),
    ]);
    return { types, connector };
  }, [client, connectorId]);

  if (loaded.state === 'loading') return <Loading what="the connector" />;
  if (loaded.state === 'failed') return <ErrorState error={loaded.error} retry={loaded.reload} />;
  // A key per connector version: a save answers the stored config (defaults applied, secrets masked) afresh.
  const { connector, types } = loaded.value;
  return <ConnectorForm key={connector?.updated_at ?? 'new'} connector={connector} types={types} />;
}

function ConnectorForm({ connector, types }: { connector: Connector | undefined; types: ConnectorType[] }) {
  const { client } = useSession();
  const { navigate } = useNavigation();
  const [saved, setSaved] = useState(connector);
  const [name, setName] = useState(connector?.name ?? '');
  const [typeName, setTypeName] = useState(connector?.type ?? '');
  const type = types.find((t) => t.type === typeName);
  const fields = type ? fieldsOf(type.config_schema, type.secret_fields) : [];
  const [values, setValues] = useState(() => formValuesOf(fields, connector?.config ?? {}));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<'saving' | 'testing'>();
  const [failure, setFailure] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [test, setTest] = useState<ConnectionTestResult | null>(connector?.last_test ?? null);

  const chooseType = (next: string) => {
    setTypeName(next);
    const nextType = types.find((t) => t.type === next);
    setValues(nextType ? formValuesOf(fieldsOf(nextType.config_schema, nextType.secret_fields), {}) : {});
    setErrors({});
  };

  const save = (event: FormEvent) => {
    event.preventDefault();
    const { config, errors: fieldErrors } = configOf(fields, values);
    if (name.trim() === '') fieldErrors.name = 'Required.';
    setErrors(fieldErrors);
    if (!type || Object.keys(fieldErrors).length > 0) return;
    setBusy('saving');
    setFailure(undefined);
    setNotice(undefined);
    const request = saved
      ? client.connectors.update(saved.id, { name: name.trim(), config })
      : client.connectors.create({ name: name.trim(), type: type.type, config } as RequestBody<'createConnector'>);
    request.then(
      (stored) => {
        setBusy(undefined);
        if (!saved) return navigate(paths.connector(stored.id));
        setSaved(stored);
        setValues(formValuesOf(fields, stored.config));
        setTest(stored.last_test);
        setNotice('Saved. Test it to check the new settings.');
      },
      (err: unknown) => {
        setBusy(undefined);
        setFailure(describeError(err).message);
        setErrors(fieldErrorsOf(err));
      },
    );
  };

  const runTest = () => {
    if (!saved) return;
    setBusy('testing');
    setFailure(undefined);
    client.connectors
      .test(saved.id)
      .then(
        (result) => {
          setTest(result);
          // The test is kept as the connector's last_test and sets its status: the badge follows without a reload.
          setSaved({ ...saved, status: result.ok ? 'ok' : 'failed', last_test: result });
        },
        (err: unknown) => setFailure(describeError(err).message),
      )
      .finally(() => setBusy(undefined));
  };

  const title = saved ? saved.name : 'New connector';
  return (
    <section aria-labelledby="connector-title">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={paths.connectors()}>Connectors</Link> / <span aria-current="page">{title}</span>
      </nav>
      <h1 id="connector-title">
        {title} {saved && <span className={`badge connector-${saved.status}`}>{saved.status}</span>}
      </h1>
      <form className="form" onSubmit={save} noValidate aria-describedby={failure ? 'connector-failure' : undefined}>
        <div className="field">
          <label htmlFor="connector-name">Name (required)</label>
          <input
            id="connector-name"
            value={name}
            maxLength={200}
            required
            aria-invalid={errors.name !== undefined}
            onChange={(e) => setName(e.target.value)}
          />
          {errors.name && <p className="field-error">{errors.name}</p>}
        </div>
        <div className="field">
          <label htmlFor="connector-type">Type (required)</label>
          <select
            id="connector-type"
            value={typeName}
            disabled={saved !== undefined}
            required
            onChange={(e) => chooseType(e.target.value)}
            aria-describedby="connector-type-help"
          >
            <option value="">Choose a type…</option>
            {categoriesOf(types).map(([category, inCategory]) => (
              <optgroup key={category} label={category}>
                {inCategory.map((t) => (
                  <option key={t.type} value={t.type}>
                    {t.type}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
          <p id="connector-type-help" className="help">
            {type ? type.description : 'The kind of system it connects to; it cannot change once created.'}
            {saved && type && type.location_fields.length > 0 && (
              <> Changing {type.location_fields.join(', ')} means entering every secret again.</>
            )}
          </p>
        </div>
        {type && (
          <ConfigFields
            fields={fields}
            values={values}
            errors={errors}
            onChange={(field, value) => setValues((v) => ({ ...v, [field]: value }))}
          />
        )}
        <div className="toolbar">
          <button type="submit" disabled={busy !== undefined || !type}>
            {busy === 'saving' ? 'Saving…' : saved ? 'Save' : 'Create connector'}
          </button>
          {saved && (
            <button type="button" className="secondary" onClick={runTest} disabled={busy !== undefined}>
              {busy === 'testing' ? 'Testing…' : 'Test connection'}
            </button>
          )}
          <span role="status">{notice}</span>
        </div>
        {failure && (
          <p id="connector-failure" className="state state-error" role="alert">
            {failure}
          </p>
        )}
      </form>
      {test && <TestResult result={test} />}
    </section>
  );
}

function categoriesOf(types: readonly ConnectorType[]): [string, ConnectorType[]][] {
  const groups = new Map<string, ConnectorType[]>();
  for (const t of types) groups.set(t.category, [...(groups.get(t.category) ?? []), t]);
  return [...groups].sort(([a], [b]) => a.localeCompare(b));
}

/** The API's 422 names each field at fault (`config.port`); its message is shown beside that input. */
function fieldErrorsOf(error: unknown): Record<string, string> {
  if (!(error instanceof ConduitApiError)) return {};
  const byField: Record<string, string> = {};
  for (const { path, message } of error.errors) byField[path.replace(/^config\./, '')] = message;
  return byField;
}
