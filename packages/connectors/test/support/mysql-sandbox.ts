/** A throwaway database on the local MariaDB/MySQL for one test suite, dropped afterwards. */
import { randomUUID } from 'node:crypto';
import mysql from 'mysql2/promise';
import type { SqlSandbox } from './sql-sandbox.js';
import { suiteFixture } from './suite-fixture.js';

export const MYSQL_HOST = process.env['MYSQL_HOST_TEST'] ?? '127.0.0.1';
export const MYSQL_PORT = Number(process.env['MYSQL_PORT_TEST'] ?? 3306);

export interface MysqlSandbox extends SqlSandbox<mysql.Connection> {
  database: string;
  /** Whether a connection other than the admin's runs a statement that contains `text`: the server still runs ours. */
  threadRuns: (text: string) => Promise<boolean>;
}

export async function createMysqlSandbox(): Promise<MysqlSandbox> {
  let admin: mysql.Connection;
  try {
    admin = await mysql.createConnection({
      host: MYSQL_HOST,
      port: MYSQL_PORT,
      user: 'root',
      password: '',
      connectTimeout: 5000,
      timezone: 'Z',
      supportBigNumbers: true,
      bigNumberStrings: true,
    });
  } catch (err) {
    throw new Error(
      `these tests need MariaDB/MySQL at ${MYSQL_HOST}:${MYSQL_PORT} (user root, no password): ${(err as Error).message}`,
      { cause: err },
    );
  }
  const database = `conduit_connectors_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  await admin.query(`create database ${mysql.escapeId(database)}`);
  await admin.query(`use ${mysql.escapeId(database)}`);
  return {
    database,
    admin,
    config: { host: MYSQL_HOST, port: MYSQL_PORT, database, user: 'root' },
    threadRuns: async (text) => {
      const [rows] = await admin.query(
        "select count(*) as n from information_schema.processlist where info like concat('%', ?, '%') and id <> connection_id()",
        [text],
      );
      // COUNT(*) is a BIGINT, which the admin connection answers as a string.
      return Number((rows as { n: string }[])[0]!.n) > 0;
    },
    connectionIdSql: 'select connection_id() as id',
    connectionAlive: async (id) => {
      const [rows] = await admin.query('select count(*) as n from information_schema.processlist where id = ?', [id]);
      return Number((rows as { n: string }[])[0]!.n) > 0;
    },
    async drop() {
      await admin.query(`drop database if exists ${mysql.escapeId(database)}`);
      await admin.end();
    },
  };
}

/** The suite's sandbox database, made before its tests and dropped after them. */
export const useMysqlSandbox = (): MysqlSandbox => suiteFixture(createMysqlSandbox, (sandbox) => sandbox.drop());
