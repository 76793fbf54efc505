import 'reflect-metadata';
import { RequestMethod } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA } from '@nestjs/common/constants.js';
import { GATEWAY_CONTROLLERS } from '../app.module.js';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';

/** [controller, method name, HTTP method] of every route handler. */
function routes(): Array<[string, string, RequestMethod]> {
  const found: Array<[string, string, RequestMethod]> = [];
  for (const controller of GATEWAY_CONTROLLERS) {
    const proto = controller.prototype as unknown as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const handler = proto[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method !== undefined) found.push([controller.name, name, method]);
    }
  }
  return found;
}

describe('@IdempotentPost', () => {
  it('binds the Idempotency-Key interceptor to every POST route, and to no other', () => {
    const all = routes();
    const posts = all.filter(([, , method]) => method === RequestMethod.POST);
    expect(posts.length).toBeGreaterThanOrEqual(14);
    for (const [controller, name, method] of all) {
      const handler = (
        GATEWAY_CONTROLLERS.find((c) => c.name === controller)!.prototype as unknown as Record<string, unknown>
      )[name] as object;
      const interceptors = (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) ?? []) as unknown[];
      expect({ route: `${controller}.${name}`, idempotent: interceptors.includes(IdempotencyInterceptor) }).toEqual({
        route: `${controller}.${name}`,
        idempotent: method === RequestMethod.POST,
      });
    }
  });
});
