/** Injection tokens of values that are not classes. */
export const CATALOG_LOGGER = Symbol('CATALOG_LOGGER');
export const SECRETS_KEY = Symbol('SECRETS_KEY');
