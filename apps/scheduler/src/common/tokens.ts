/** Injection tokens of values that are not classes. */
export const SCHEDULER_LOGGER = Symbol('SCHEDULER_LOGGER');
export const SCHEDULER_SETTINGS = Symbol('SCHEDULER_SETTINGS');
