/** Injection tokens of QueuesModule. */
export const QUEUES_LOGGER = Symbol('QUEUES_LOGGER');
export const QUEUES_OUTBOX = Symbol('QUEUES_OUTBOX');
export const QUEUES_CONSUMED = Symbol('QUEUES_CONSUMED');
