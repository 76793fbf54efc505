import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import type { Redis } from 'ioredis';
import { type Observable, catchError, from, map, mergeMap, of } from 'rxjs';
import { AppError } from '@conduit/contracts';
import { SecretBox } from '@conduit/secrets';
import { principalOf } from '../access/principal-of.js';
import { GATEWAY_CONFIG, REDIS } from '../tokens.js';
import type { GatewayConfig } from '../config.js';
import { canonicalJson } from './canonical-json.js';

interface InFlight {
  state: 'in_flight';
  fingerprint: string;
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

/**
 * `Idempotency-Key` on POST: the same key and body within the retention replay the first answer without a second
 * effect; another body is a 422. Only successes are kept: a failed request changes nothing, so running it again is safe.
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
  ) {
    this.box = new SecretBox(config.SECRETS_KEY);
    this.fingerprintKey = Buffer.from(hkdfSync('sha256', config.SECRETS_KEY, Buffer.alloc(0), 'conduit idempotency fingerprint', 32));
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
    const scope = createHash('sha256').update(`${principal.credential_id}\n${header}`).digest('hex');
    const key = `${this.config.REDIS_PREFIX}idem:${principal.tenant_id}:${scope}`;
    const aad = `idempotency:${principal.tenant_id}:${scope}`;
    const fingerprint = createHmac('sha256', this.fingerprintKey)
      .update(`${request.url}\n${canonicalJson(request.body ?? null)}`)
      .digest('hex');

    return from(this.claim(key, fingerprint)).pipe(
      mergeMap((existing) => {
        if (existing) return of(this.replay(existing, fingerprint, reply, aad));
        return next.handle().pipe(
          // Stored before the answer leaves, so a retry right after it replays instead of meeting the in-flight mark.
          mergeMap((body) => from(this.complete(key, fingerprint, reply, body, aad)).pipe(map(() => body))),
          catchError((err: unknown) => from(this.redis.del(key)).pipe(mergeMap(() => Promise.reject(err)))),
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

  private replay(record: IdempotencyRecord, fingerprint: string, reply: FastifyReply, aad: string): unknown {
    if (record.fingerprint !== fingerprint) {
      throw new AppError('idempotency_key_reused', 'this Idempotency-Key was used with another request body');
    }
    if (record.state === 'in_flight') {
      throw new AppError('idempotency_in_flight', 'a request with this Idempotency-Key is still being processed; retry later');
    }
    reply.headers({ ...record.headers, 'idempotent-replayed': 'true' });
    const json = this.box.open(record.sealed, aad, 'the stored answer');
    return json === '' ? undefined : (JSON.parse(json) as unknown);
  }

  private async complete(key: string, fingerprint: string, reply: FastifyReply, body: unknown, aad: string): Promise<void> {
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
