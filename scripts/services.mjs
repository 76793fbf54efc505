// The services of a local stack, in start order, with their default ports (the env var that moves each).
export const SERVICES = [
  { name: 'catalog', portVar: 'CATALOG_PORT', port: 3101 },
  { name: 'scheduler', portVar: 'SCHEDULER_PORT', port: 3102 },
  { name: 'executor', portVar: 'EXECUTOR_PORT', port: 3103 },
  { name: 'monitoring', portVar: 'MONITORING_PORT', port: 3104 },
  { name: 'webhook-dispatcher', portVar: 'WEBHOOK_DISPATCHER_PORT', port: 3105 },
  { name: 'gateway', portVar: 'GATEWAY_PORT', port: 3000 },
];
