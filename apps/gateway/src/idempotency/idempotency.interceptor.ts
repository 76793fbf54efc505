import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type Observable, catchError, from, map, mergeMap, throwError } from 'rxjs';
import { AppError } from '@conduit/contracts';
import { HeaderedError } from '../http/problem.js';
import { SecretBox, secretKeysOf } from '@conduit/secrets';
import { principalOf } from '../access/principal-of.js';
import './request-idempotency.js';
import { GATEWAY_CONFIG, GATEWAY_LOGGER, REDIS } from '../tokens.js';
import type { GatewayConfig } from '../config.js';
import { canonicalJson } from './canonical-json.js';

interface InFlight {
  state: 'in_flight';
  fingerprint: string;
  /** Kept after the request answered 503: its work may still commit, so a retry waits until the record lapses. */
  held?: true;
}
interface Completed {
  state: 'completed';
  fingerprint: string;
  headers: Record<string, string>;
  /** The answer as JSON, sealed: some answers carry a secret (a new API key, a new tenant's first key). */
  sealed: string;
}
type IdempotencyRecord = InFlight | Completed;

const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;
const REPLAYED_HEADERS = ['location', 'etag'] as const;
/** How long a first request may run before a retry with its key is let through again. */
const IN_FLIGHT_TTL_S = 60;
/** Retry-After of a 409 while the first request is still running: most requests end within a second. */
const IN_PROGRESS_RETRY_AFTER_S = 1;

/**
 * `Idempotency-Key` on POST: the same key and body within the retention replay the first answer without a second
 * effect; another body is a 422; a retry while the first request runs is a 409 `idempotency_in_progress` with
 * Retry-After. Only successes are kept. A request that failed is released at once (it changed nothing), except after
 * a 503: the service may still commit it, so its record is held for IDEMPOTENCY_HOLD_AFTER_503_MS (409s meanwhile);
 * after that a retry reaches the service, which finds the resource by the key kept on its row (createOnce) and
 * answers it instead of making a second one. The key and fingerprint travel to that service in the RPC context.
 * A record belongs to the credential that made it: another key of the same tenant using the same Idempotency-Key
 * gets its own record, never the first one's answer. The answer is stored sealed, bound to the credential and key,
 * and the body's fingerprint is an HMAC, so Redis holds neither a secret nor a hash to guess one from.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly box: SecretBox;
  private readonly fingerprintKey: Buffer;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
  ) {
    this.box = new SecretBox(secretKeysOf(config));
    this.fingerprintKey = Buffer.from(
      hkdfSync('sha256', config.SECRETS_KEY, Buffer.alloc(0), 'conduit idempotency fingerprint', 32),
    );
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const header = request.headers['idempotency-key'];
    if (request.method !== 'POST' || header === undefined) return next.handle();
    if (typeof header !== 'string' || !KEY_FORMAT.test(header)) {
      throw new AppError('invalid_parameter', 'Idempotency-Key must be 1 to 255 visible ASCII characters');
    }
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const principal = principalOf(request);
    // The route's pattern, not its URL: a key is unique per kind of resource (a project's and a pipeline's are two
    // records), while the same key on another job's trigger is the same kind with another body (422).
    const route = request.routeOptions.url ?? request.url;
    const scope = createHash('sha256').update(`${principal.credential_id}\n${route}\n${header}`).digest('hex');
    const key = `${this.config.REDIS_PREFIX}idem:${principal.tenant_id}:${scope}`;
    const aad = `idempotency:${principal.tenant_id}:${scope}`;
    const fingerprint = createHmac('sha256', this.fingerprintKey)
      .update(`${request.url}\n${canonicalJson(request.body ?? {})}`)
      .digest('hex');

    return from(this.claim(key, fingerprint)).pipe(
      mergeMap((existing) => {
        if (existing) return from(this.replay(key, existing, fingerprint, reply, aad));
        request.idempotency = { key: header, fingerprint };
        return next.handle().pipe(
          // Only the service's own failure releases the key: once it has answered, its work is done.
          catchError((err: unknown) =>
            from(this.release(key, fingerprint, err)).pipe(mergeMap(() => throwError(() => err))),
          ),
          // Stored before the answer leaves, so a retry right after it replays instead of meeting the in-flight mark.
          mergeMap((body: unknown) => from(this.complete(key, fingerprint, reply, body, aad)).pipe(map(() => body))),
        );
      }),
    );
  }

  /** Takes the key for this request, or answers the record another request left. */
  private async claim(key: string, fingerprint: string): Promise<IdempotencyRecord | undefined> {
    const record: InFlight = { state: 'in_flight', fingerprint };
    const taken = await this.redis.set(key, JSON.stringify(record), 'EX', IN_FLIGHT_TTL_S, 'NX');
    if (taken === 'OK') return undefined;
    const existing = await this.redis.get(key);
    if (existing === null) return this.claim(key, fingerprint);
    return JSON.parse(existing) as IdempotencyRecord;
  }

  private async replay(
    key: string,
    record: IdempotencyRecord,
    fingerprint: string,
    reply: FastifyReply,
    aad: string,
  ): Promise<unknown> {
    if (record.fingerprint !== fingerprint) {
      throw new AppError(
        'idempotency_key_reused',
        'this Idempotency-Key was used with another request (another body, or another resource of the same kind)',
      );
    }
    if (record.state === 'in_flight') {
      const retryAfter = record.held
        ? Math.max(1, Math.ceil((await this.redis.pttl(key)) / 1000))
        : IN_PROGRESS_RETRY_AFTER_S;
      throw new HeaderedError(
        {
          code: 'idempotency_in_progress',
          detail: 'a request with this Idempotency-Key is still being processed; retry after Retry-After',
        },
        { 'retry-after': String(retryAfter) },
      );
    }
    reply.headers({ ...record.headers, 'idempotent-replayed': 'true' });
    const json = this.box.open(record.sealed, aad, 'the stored answer');
    return json === '' ? undefined : (JSON.parse(json) as unknown);
  }

  /**
   * After a failure: a 503 may have left work that still commits (an RPC timeout), so the record is held a while;
   * any other failure changed nothing and frees the key at once. A Redis error here is not the client's answer: the
   * record then lapses with its TTL.
   */
  private async release(key: string, fingerprint: string, err: unknown): Promise<void> {
    try {
      if (err instanceof AppError && err.code === 'service_unavailable') {
        const held: InFlight = { state: 'in_flight', fingerprint, held: true };
        await this.redis.set(key, JSON.stringify(held), 'PX', this.config.IDEMPOTENCY_HOLD_AFTER_503_MS, 'XX');
      } else {
        await this.redis.del(key);
      }
    } catch {
      // The original error is what the client gets.
    }
  }

  /**
   * Stores the answer for replays. Failing to is logged, never the client's answer: the work is committed and the
   * answer may hold a secret shown only once (a new API key). The in-flight mark lapses with its TTL; a retry then
   * reaches the service, which finds the resource by the key kept on its row (createOnce).
   */
  private async complete(
    key: string,
    fingerprint: string,
    reply: FastifyReply,
    body: unknown,
    aad: string,
  ): Promise<void> {
    try {
      await this.store(key, fingerprint, reply, body, aad);
    } catch (err) {
      // The message only: a Redis reply error carries the command's arguments, the sealed answer among them.
      this.logger.warn(
        { idempotency_record: key, reason: (err as Error).message },
        'could not store the idempotent answer; it is returned anyway',
      );
    }
  }

  private async store(
    key: string,
    fingerprint: string,
    reply: FastifyReply,
    body: unknown,
    aad: string,
  ): Promise<void> {
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (typeof value === 'string') headers[name] = value;
    }
    // JSON has no undefined: an answer without a body is stored as the empty string.
    const json = body === undefined ? '' : JSON.stringify(body);
    const record: Completed = { state: 'completed', fingerprint, headers, sealed: this.box.seal(json, aad) };
    await this.redis.set(key, JSON.stringify(record), 'EX', this.config.IDEMPOTENCY_TTL_S);
  }
}
