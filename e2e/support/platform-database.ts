/** Reads of the platform's own database, for checks the API cannot make (what a refused request left behind). */
import pg from 'pg';
import type { Stack } from '@conduit/testing';

/** How many projects with one of these names the catalog holds. */
export async function countProjectsNamed(stack: Stack, names: string[]): Promise<number> {
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      'select count(*) as n from catalog.projects where name = any($1)',
      [names],
    );
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}
