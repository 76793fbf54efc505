/** Injection tokens of values that are not classes. */
export const DISPATCHER_LOGGER = Symbol('DISPATCHER_LOGGER');
export const DISPATCHER_SETTINGS = Symbol('DISPATCHER_SETTINGS');
