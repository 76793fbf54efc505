import type { Client } from 'openapi-fetch';
import type { paths } from '../generated/api.js';
import { Paginated } from '../pagination.js';
import { ifMatchHeader, type ConditionalOptions } from '../versions.js';
import type { ConnectionTestResult, Connector, ConnectorType, QueryOf, RequestBody } from '../types.js';
import { defined, expectNoContent, unwrap } from '../unwrap.js';
import type { PageOptions } from './list-params.js';

export interface ConnectorListOptions extends PageOptions {
  projectId?: string;
  type?: QueryOf<'listConnectors'>['type'];
}

export class ConnectorsApi {
  constructor(private readonly raw: Client<paths>) {}

  list(options: ConnectorListOptions = {}): Paginated<Connector> {
    return new Paginated((cursor) =>
      unwrap(
        this.raw.GET('/v2/connectors', {
          params: {
            query: defined({ cursor, limit: options.pageSize, project_id: options.projectId, type: options.type }),
          },
        }),
      ),
    );
  }

  get(connectorId: string): Promise<Connector> {
    return unwrap(this.raw.GET('/v2/connectors/{connector_id}', { params: { path: { connector_id: connectorId } } }));
  }

  create(body: RequestBody<'createConnector'>): Promise<Connector> {
    return unwrap(this.raw.POST('/v2/connectors', { body }));
  }

  /** Replaces the connector; `ifMatch` (etagOf a connector answered before) makes it conditional. */
  async update(
    connectorId: string,
    body: RequestBody<'updateConnector'>,
    options: ConditionalOptions = {},
  ): Promise<Connector> {
    return unwrap(
      this.raw.PUT('/v2/connectors/{connector_id}', {
        params: { path: { connector_id: connectorId }, header: ifMatchHeader(options) },
        body,
      }),
    );
  }

  /** Deletes the connector; `ifMatch` makes it conditional. */
  async delete(connectorId: string, options: ConditionalOptions = {}): Promise<void> {
    return expectNoContent(
      this.raw.DELETE('/v2/connectors/{connector_id}', {
        params: { path: { connector_id: connectorId }, header: ifMatchHeader(options) },
      }),
    );
  }

  /** Really connects, step by step; a failed test is a result (`ok: false`), not an error. */
  test(connectorId: string): Promise<ConnectionTestResult> {
    return unwrap(
      this.raw.POST('/v2/connectors/{connector_id}/test', { params: { path: { connector_id: connectorId } } }),
    );
  }

  /** Every connector type, with the JSON Schema of its config. */
  async types(): Promise<ConnectorType[]> {
    return (await unwrap(this.raw.GET('/v2/connector-types'))).data;
  }
}
