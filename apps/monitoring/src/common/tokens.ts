/** Injection tokens of values that are not classes. */
export const MONITORING_LOGGER = Symbol('MONITORING_LOGGER');
export const MONITORING_SETTINGS = Symbol('MONITORING_SETTINGS');
