/** Nest injection token of the validated AuthConfig (a zod-inferred type, so it needs a token). */
export const AUTH_CONFIG = Symbol('AUTH_CONFIG');
