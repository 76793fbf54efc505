/**
 * A MariaDB/MySQL database and user of the suite's own on the local server (root, no password), for mysql
 * connectors to read and write; `drop()` removes both.
 */
import { randomUUID } from 'node:crypto';
import mysql from 'mysql2/promise';

export interface MariaDatabase {
  name: string;
  user: string;
  password: string;
  /** Root's connection, using the database, in UTC: the suite's own setup and checks. */
  root: mysql.Connection;
  /** A mysql connector config for the suite's user. */
  config(): Record<string, unknown>;
  drop(): Promise<void>;
}

/** `grant`: what the suite's user may do in its database (`select` for a source only, `all` to write too). */
export async function createMariaDatabase(grant: 'select' | 'all'): Promise<MariaDatabase> {
  const id = randomUUID().replace(/-/g, '');
  const name = `conduit_e2e_${id.slice(0, 20)}`;
  const user = `conduit_e2e_${id.slice(20, 28)}`;
  const password = `pw-${randomUUID()}`;
  let root: mysql.Connection;
  try {
    root = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '', timezone: 'Z' });
  } catch (err) {
    throw new Error(`this suite needs MariaDB/MySQL at 127.0.0.1:3306 (root, no password): ${(err as Error).message}`, {
      cause: err,
    });
  }
  await root.query(`create database ${mysql.escapeId(name)}`);
  await root.query('create user ?@? identified by ?', [user, '%', password]);
  await root.query(`grant ${grant === 'all' ? 'all' : 'select'} on ${mysql.escapeId(name)}.* to ?@?`, [user, '%']);
  await root.query(`use ${mysql.escapeId(name)}`);
  return {
    name,
    user,
    password,
    root,
    config: () => ({ host: '127.0.0.1', port: 3306, database: name, user, password }),
    async drop() {
      await root.query(`drop database if exists ${mysql.escapeId(name)}`);
      await root.query('drop user if exists ?@?', [user, '%']);
      await root.end();
    },
  };
}
