import { AppError, type IdempotencyKey, type RpcContext } from '@conduit/contracts';

/** What a creating handler needs of its caller's context beyond the tenant: its Idempotency-Key and deadline. */
export type CreateContext = Pick<RpcContext, 'idempotency' | 'deadline'>;

/** The two columns every resource created through the API keeps (unique per tenant on `idempotency_key`). */
export interface IdempotentRow {
  idempotencyKey: string | null;
  idempotencyFingerprint: string | null;
}

export interface CreateOnceOptions<E extends IdempotentRow> {
  /** The tenant's row that carries this key, or null. */
  find(key: string): Promise<E | null>;
  /** Makes the row, with the key and fingerprint on it, in a transaction of its own that commits or fails whole. */
  create(): Promise<E>;
}

/**
 * Creates a resource once per `Idempotency-Key`: a request whose key is already on a row of the tenant answers that
 * row (the resource as it is now: same id, same status code) instead of making a second one; the same key with
 * another request is a 422. Two requests racing with one key both insert; the unique index on (tenant_id,
 * idempotency_key) lets one commit, and the other's insert waits for it and fails (on that index, or on another one
 * such as a unique name, whichever PostgreSQL checks first), so any failed create whose key is now on a row answers
 * that row. Without a key it is a plain create.
 */
export async function createOnce<E extends IdempotentRow>(
  idempotency: IdempotencyKey | undefined,
  opts: CreateOnceOptions<E>,
): Promise<E> {
  if (!idempotency) return opts.create();
  const existing = await opts.find(idempotency.key);
  if (existing) return sameRequest(existing, idempotency);
  try {
    return await opts.create();
  } catch (err) {
    const winner = await opts.find(idempotency.key).catch(() => null);
    if (!winner) throw err;
    return sameRequest(winner, idempotency);
  }
}

function sameRequest<E extends IdempotentRow>(row: E, idempotency: IdempotencyKey): E {
  if (row.idempotencyFingerprint !== idempotency.fingerprint) {
    throw new AppError('idempotency_key_reused', 'this Idempotency-Key was used with another request body');
  }
  return row;
}

/** The columns a new row takes from the request's key: both null without one. */
export function idempotencyColumns(idempotency: IdempotencyKey | undefined): IdempotentRow {
  return { idempotencyKey: idempotency?.key ?? null, idempotencyFingerprint: idempotency?.fingerprint ?? null };
}
