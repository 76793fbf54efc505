import { applyDecorators, Post, UseInterceptors } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';

/**
 * A POST route that honours `Idempotency-Key`. Bound per route rather than globally: a global interceptor
 * wraps every GET, PUT and DELETE in an RxJS pipeline too, a measurable share of a read's cost in the gateway.
 * Every POST of the API uses this instead of `@Post` (a test checks it).
 */
export function IdempotentPost(path?: string): MethodDecorator {
  return applyDecorators(Post(path), UseInterceptors(IdempotencyInterceptor));
}
