import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import {
  type IdKind,
  type RpcPattern,
  AppError,
  isId,
  parseOrThrow,
  parseQueryOrThrow,
  validationFailed,
} from '@conduit/contracts';
import { isPlainObject } from '@conduit/dag';
import { type ReferenceCheck, referenceErrors } from './reference-checks.js';
import { nestedFaults, type NestedChecks } from './nested-checks.js';
import type { BackendAnswer, BackendCallOptions, BackendClient, CallOptions } from './backend.client.js';
import type { BodySealer } from './transit-secrets.js';
import { principalOf } from '../access/principal-of.js';

export interface ResourceRoutes {
  kind: IdKind;
  /** Public path of the collection, e.g. `/v2/projects`. */
  path: string;
  noun: string;
  create: z.ZodType;
  update: z.ZodType;
  listQuery: z.ZodType;
  /** RPC pattern prefix, e.g. `catalog.projects`. */
  rpc: CrudResource;
  /** Body fields naming other resources, checked here too when the body has other faults. */
  references?: readonly ReferenceCheck[];
  /** Nested fields the owner checks only in a valid body (nested-checks.ts), checked here too when it has faults. */
  nested?: NestedChecks;
  /** Seals the secrets of a validated create or update body before it is sent. */
  seal?: BodySealer;
}

/** A resource the gateway forwards as CRUD: the prefix of a `.create` pattern (each also has list, get, update, delete). */
type CrudResource = RpcPattern extends infer P ? (P extends `${infer R}.create` ? R : never) : never;
type Verb = 'create' | 'list' | 'get' | 'update' | 'delete' | 'test' | 'pause' | 'resume';

/** The request's If-Match, for an update or a delete that must find the resource at that ETag (412 if not). */
function ifMatchOf(request: FastifyRequest): { if_match?: string } {
  const ifMatch = request.headers['if-match'];
  return typeof ifMatch === 'string' ? { if_match: ifMatch } : {};
}

/** The resource's pattern for a verb; `${CrudResource}.create` and the like are checked against the contract's patterns. */
function pattern<V extends Verb>(routes: ResourceRoutes, verb: V): Extract<`${CrudResource}.${V}`, RpcPattern> {
  return `${routes.rpc}.${verb}` as Extract<`${CrudResource}.${V}`, RpcPattern>;
}

/**
 * The gateway's half of a CRUD resource: validates the request with the shared schemas, forwards it to the
 * owning service, and puts ETag and Location on the answer. Controllers stay declarations of routes.
 */
export class ResourceForwarder {
  constructor(
    private readonly backend: BackendClient,
    private readonly routes: ResourceRoutes,
  ) {}

  /** A malformed id cannot name anything: 404 without asking the service. */
  checkId(id: string): string {
    if (!isId(this.routes.kind, id)) throw new AppError('not_found', `no ${this.routes.noun} with that id`);
    return id;
  }

  async list(request: FastifyRequest): Promise<unknown> {
    const query = parseQueryOrThrow(this.routes.listQuery, request.query ?? {});
    return (await this.send(pattern(this.routes, 'list'), { query }, request)).data;
  }

  async create(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const body = this.sealed(await this.parseBody('create', request), request);
    const answer = await this.send(pattern(this.routes, 'create'), { body }, request, { createsResource: true });
    reply.header('location', `${this.routes.path}/${answer.data.id}`);
    return this.tagged(answer, reply);
  }

  async get(id: string, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    return this.tagged(await this.send(pattern(this.routes, 'get'), { id: this.checkId(id) }, request), reply);
  }

  async update(id: string, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    this.checkId(id);
    const body = this.sealed(await this.parseBody('update', request), request);
    const data = { id, body, ...ifMatchOf(request) };
    return this.tagged(await this.send(pattern(this.routes, 'update'), data, request), reply);
  }

  async remove(id: string, request: FastifyRequest): Promise<void> {
    await this.send(pattern(this.routes, 'delete'), { id: this.checkId(id), ...ifMatchOf(request) }, request);
  }

  /** An action on one resource (test, pause...): the id is checked; it takes no body (see RouteInputGuard). */
  async action(
    verb: 'test' | 'pause' | 'resume',
    id: string,
    request: FastifyRequest,
    opts: CallOptions = {},
  ): Promise<unknown> {
    return (await this.send(pattern(this.routes, verb), { id: this.checkId(id) }, request, opts)).data;
  }

  /**
   * The body parsed with the operation's schema. When it has faults, the references it names (which only their
   * owner can check, and only once the body is valid) and its nested fields' shape are checked as well, so that
   * errors[] lists every field at fault at once. This costs nothing on a valid request.
   */
  private async parseBody(verb: 'create' | 'update', request: FastifyRequest): Promise<unknown> {
    const body: unknown = request.body ?? {};
    try {
      return parseOrThrow(this.routes[verb], body);
    } catch (err) {
      const { references } = this.routes;
      const nested = this.routes.nested?.[verb];
      if ((!references?.length && !nested) || !(err instanceof AppError) || err.code !== 'validation_failed') throw err;
      const atFault = err.errors ?? [];
      const more = [
        ...(nested && isPlainObject(body) ? nestedFaults(nested, body, atFault) : []),
        ...(references?.length ? await referenceErrors(references, body, atFault, this.backend, request) : []),
      ];
      if (more.length === 0) throw err;
      throw validationFailed([...atFault, ...more]);
    }
  }

  private sealed(body: unknown, request: FastifyRequest): unknown {
    return this.routes.seal ? this.routes.seal(body, principalOf(request).tenant_id) : body;
  }

  private send<P extends RpcPattern>(
    rpcPattern: P,
    data: unknown,
    request: FastifyRequest,
    opts: BackendCallOptions = {},
  ): Promise<BackendAnswer<P>> {
    // The data was parsed with the pattern's own body and query schemas above.
    return this.backend.call(rpcPattern, data as never, request, opts);
  }

  private tagged(answer: BackendAnswer<RpcPattern>, reply: FastifyReply): unknown {
    if (answer.etag) reply.header('etag', answer.etag);
    return answer.data;
  }
}
