// What other packages (tests, e2e, the start scripts) may use from the scheduler.
export { AppModule, type AppModuleOptions } from './app.module.js';
export type { SchedulerDeps } from './scheduler-core.module.js';
export { schedulerSettings, type SchedulerSettings } from './scheduler-settings.js';
export { schedulerEnvSchema, loadSchedulerConfig, type SchedulerConfig } from './config.js';
export {
  SCHEDULER_ENTITIES,
  SCHEDULER_MIGRATIONS,
  schedulerDatabaseOptions,
  createSchedulerDataSource,
  type SchedulerDataSourceOptions,
} from './database/scheduler-data-source.js';
export { nextFireTime } from './schedules/next-fire-time.js';
export { JobsService } from './jobs/jobs.service.js';
export { RunsService } from './runs/runs.service.js';
export { RunStateMachine, type ReportOutcome } from './runs/run-state-machine.js';
export { RunReaper, type ReapResult } from './reaper/run-reaper.js';
export { JobSchedules } from './schedules/job-schedules.js';
export { ScheduleClock } from './schedules/schedule-clock.js';
