// Sign in with an API key: checked against the API before it is kept (sessionStorage, never the URL).
import { useState, type FormEvent } from 'react';
import { describeError } from '../ui/states.js';

export function SignInPage({ onSignIn }: { onSignIn: (apiKey: string) => Promise<void> }) {
  const [apiKey, setApiKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; hint: string }>();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const key = apiKey.trim();
    if (key === '') return setError({ message: 'Enter an API key.', hint: 'Keys start with cnd_.' });
    setBusy(true);
    setError(undefined);
    onSignIn(key).catch((err: unknown) => {
      setError(describeError(err));
      setBusy(false);
    });
  };

  return (
    <main className="sign-in">
      <h1>Conduit console</h1>
      {/* method="post" and no action: even without script the key would never land in the URL. */}
      <form method="post" onSubmit={submit} aria-describedby="sign-in-help">
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={apiKey}
          onChange={(e) => setApiKey(e.target.value)}
          aria-invalid={error !== undefined}
          aria-describedby={error ? 'sign-in-error' : undefined}
          required
        />
        <p id="sign-in-help" className="help">
          The key stays in this tab only (session storage) and is sent as X-API-Key. Get one from your administrator or
          with <code>POST /v2/api-keys</code>.
        </p>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {error && (
          <div id="sign-in-error" className="state state-error" role="alert">
            <p>{error.message}</p>
            <p>{error.hint}</p>
          </div>
        )}
      </form>
    </main>
  );
}
