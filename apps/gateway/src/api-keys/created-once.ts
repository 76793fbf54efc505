import { AppError, type IdempotencyKey } from '@conduit/contracts';

interface KeyedRow {
  id: string;
  idempotency_fingerprint: string | null;
}

/**
 * Creates an API key (or a tenant with its first key) at most once per Idempotency-Key. Unlike other resources, a row
 * the key already made cannot be answered again: the answer showed the new API key once, and only a hash of it is
 * kept. Replays come from the gateway's sealed record (the same credential, 24 h); a request that reaches here with a
 * key already on a row (another credential of the tenant, after the 24 h, or after a crash between the commit and
 * the record) is refused, naming the row, instead of making a second key.
 */
export async function createdOnce<T>(
  idempotency: IdempotencyKey | undefined,
  what: string,
  find: (key: string) => Promise<KeyedRow | null>,
  create: () => Promise<T>,
): Promise<T> {
  if (!idempotency) return create();
  const existing = await find(idempotency.key);
  if (existing) throw refusal(existing, idempotency, what);
  try {
    return await create();
  } catch (err) {
    // Another request with the key committed first (the unique index made this insert wait for it, then fail).
    const winner = await find(idempotency.key).catch(() => null);
    if (!winner) throw err;
    throw refusal(winner, idempotency, what);
  }
}

function refusal(row: KeyedRow, idempotency: IdempotencyKey, what: string): AppError {
  if (row.idempotency_fingerprint !== idempotency.fingerprint) {
    return new AppError('idempotency_key_reused', 'this Idempotency-Key was used with another request body');
  }
  return new AppError(
    'idempotency_key_reused',
    `this Idempotency-Key already made ${what} ${row.id}, whose answer (the only one to show its key) cannot be replayed ` +
      'here; revoke that key if it was lost, and create another with a new Idempotency-Key',
  );
}
