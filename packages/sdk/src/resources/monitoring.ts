import type { Client } from 'openapi-fetch';
import type { paths } from '../generated/api.js';
import { Paginated } from '../pagination.js';
import type { Alert, Metrics, QueryOf } from '../types.js';
import { defined, unwrap } from '../unwrap.js';
import type { PageOptions } from './list-params.js';

export interface MetricsOptions {
  /** One job's runs instead of the whole tenant's. */
  jobId?: string;
  /** The window, e.g. `24h` (the API's default), `7d`; at most `90d`. */
  since?: string;
}

export interface AlertListOptions extends PageOptions {
  jobId?: string;
  status?: QueryOf<'listAlerts'>['status'];
  severity?: QueryOf<'listAlerts'>['severity'];
}

export class MonitoringApi {
  constructor(private readonly raw: Client<paths>) {}

  /** Counts, success rate and durations of the runs queued inside the window. */
  metrics(options: MetricsOptions = {}): Promise<Metrics> {
    return unwrap(
      this.raw.GET('/v2/metrics', { params: { query: defined({ job_id: options.jobId, since: options.since }) } }),
    );
  }

  /** The tenant's alerts, newest first. */
  alerts(options: AlertListOptions = {}): Paginated<Alert> {
    return new Paginated((cursor) =>
      unwrap(
        this.raw.GET('/v2/alerts', {
          params: {
            query: defined({
              cursor,
              limit: options.pageSize,
              job_id: options.jobId,
              status: options.status,
              severity: options.severity,
            }),
          },
        }),
      ),
    );
  }
}
