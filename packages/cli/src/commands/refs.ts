// Commands take a job or a connector by id or by name, as people remember them.
import type { ConduitClient, Connector, Job } from '@conduit/sdk';
import { CliError } from '../output.js';

const looksLikeId = (ref: string, prefix: string) => new RegExp(`^${prefix}_[0-9A-Za-z]{26}$`).test(ref);

export async function findJob(client: ConduitClient, ref: string): Promise<Job> {
  if (looksLikeId(ref, 'job')) return client.jobs.get(ref);
  const job = await client.jobs.list({ pageSize: 200 }).find((j) => j.name === ref);
  if (!job) throw new CliError('not_found', `no job named "${ref}"`);
  return job;
}

export async function findConnector(client: ConduitClient, ref: string): Promise<Connector> {
  if (looksLikeId(ref, 'con')) return client.connectors.get(ref);
  const connector = await client.connectors.list({ pageSize: 200 }).find((c) => c.name === ref);
  if (!connector) throw new CliError('not_found', `no connector named "${ref}"`);
  return connector;
}
