import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { cursorLists, pageOf, type Alert, type AlertListQuery, type Page } from '@conduit/contracts';
import { ALERT_COLUMNS, alertOf, type AlertRow } from './alert.mapper.js';
import { cursorAfter } from '@conduit/service-kit';

/** List Alerts: newest first, keyset pages on the time-ordered id, filtered by job, status and severity. */
@Injectable()
export class AlertsService {
  constructor(private readonly ds: DataSource) {}

  async list(tenantId: string, query: AlertListQuery): Promise<Page<Alert>> {
    const params: unknown[] = [tenantId];
    let where = 'tenant_id = $1';
    const after = cursorAfter(query.cursor, cursorLists.alerts);
    if (after !== undefined) where += ` AND id < $${params.push(after)}`;
    if (query.job_id) where += ` AND job_id = $${params.push(query.job_id)}`;
    if (query.status) where += ` AND status = $${params.push(query.status)}`;
    if (query.severity) where += ` AND severity = $${params.push(query.severity)}`;
    const rows = await this.ds.query<AlertRow[]>(
      `SELECT ${ALERT_COLUMNS} FROM alerts WHERE ${where} ORDER BY id DESC LIMIT ${query.limit + 1}`,
      params,
    );
    return pageOf(rows.map(alertOf), query.limit, (alert) => alert.id, cursorLists.alerts);
  }
}
