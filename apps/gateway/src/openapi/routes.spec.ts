import 'reflect-metadata';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { OPS_PATHS } from '@conduit/service-kit';
import { GATEWAY_CONTROLLERS } from '../app.module.js';
import { OPERATION_ID } from './operation.decorator.js';
import { OPERATIONS } from './operations/index.js';

/** `v2/jobs/:job_id` + `runs/:run_id` -> `/v2/jobs/{job_id}/runs/{run_id}`. */
function openApiPath(...parts: string[]): string {
  const joined = parts.filter((p) => p !== '' && p !== '/').join('/');
  return `/${joined}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

interface Route {
  handler: string;
  method: string;
  path: string;
  operationId: string | undefined;
}

function routes(): Route[] {
  const found: Route[] = [];
  for (const controller of GATEWAY_CONTROLLERS) {
    const base = Reflect.getMetadata(PATH_METADATA, controller) as string;
    const proto = controller.prototype as unknown as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const handler = proto[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue;
      found.push({
        handler: `${controller.name}.${name}`,
        method: RequestMethod[method].toLowerCase(),
        path: openApiPath(base, Reflect.getMetadata(PATH_METADATA, handler) as string),
        operationId: Reflect.getMetadata(OPERATION_ID, handler) as string | undefined,
      });
    }
  }
  return found;
}

describe('routes and the OpenAPI operations', () => {
  it("every route serves the operation it names, with that operation's method and path", () => {
    const all = routes();
    expect(all.length).toBe(OPERATIONS.filter((o) => !o.public).length);
    for (const route of all) {
      const op = OPERATIONS.find((o) => o.operationId === route.operationId);
      expect({ handler: route.handler, method: route.method, path: route.path }).toEqual({
        handler: route.handler,
        method: op?.method,
        path: op?.path,
      });
    }
  });

  it("every operation of the document is served by exactly one route (the public ones by service-kit's ops routes)", () => {
    const served = routes().map((r) => r.operationId);
    for (const op of OPERATIONS) {
      if (op.public) {
        expect(OPS_PATHS).toContain(op.path.slice(1));
        continue;
      }
      expect({ op: op.operationId, routes: served.filter((id) => id === op.operationId).length }).toEqual({
        op: op.operationId,
        routes: 1,
      });
    }
  });

  it('operationIds are unique', () => {
    const ids = OPERATIONS.map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
