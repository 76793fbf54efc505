// Loading, error and empty states: each says what is happening and what to do next.
import { ConduitApiError } from '@conduit/sdk';
import type { ReactNode } from 'react';

export function Loading({ what }: { what: string }) {
  return (
    <p className="state" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

/** What went wrong, in the API's words when it answered, and what to try. */
export function describeError(error: unknown): { message: string; hint: string } {
  if (error instanceof ConduitApiError) {
    if (error.status === 401)
      return { message: error.detail, hint: 'Sign out and sign in again with a valid API key.' };
    if (error.status === 403)
      return { message: error.detail, hint: 'This key lacks the scope; ask for a key with it.' };
    if (error.status === 404) return { message: error.detail, hint: 'It may have been deleted: go back to the list.' };
    if (error.status === 429 || error.status >= 500)
      return { message: error.detail, hint: 'The service is busy or down: try again in a moment.' };
    return { message: error.detail, hint: 'Check the request and try again.' };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message, hint: 'Check that the gateway is running and reachable, then try again.' };
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const { message, hint } = describeError(error);
  return (
    <div className="state state-error" role="alert">
      <p>
        <strong>Something went wrong:</strong> {message}
      </p>
      <p>{hint}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state state-empty">{children}</div>;
}
