/** Injection tokens for the gateway's non-class providers. */
export const GATEWAY_LOGGER = Symbol('GATEWAY_LOGGER');
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
export const REDIS = Symbol('REDIS');
export const RPC_CLIENT = Symbol('RPC_CLIENT');
export const ROUTE_TABLE = Symbol('ROUTE_TABLE');
/** The provider that hands the access guard's admission to the server's early hook (http/admit-before-body.ts). */
export const EARLY_ADMISSION = Symbol('EARLY_ADMISSION');
/** The gateway's Prometheus registry (made in main.ts, served on /metrics). */
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');
