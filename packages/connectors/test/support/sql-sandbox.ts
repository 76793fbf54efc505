/** What every SQL sandbox (support/mysql-sandbox, support/pg-sandbox) offers, whatever the server. */
export interface SqlSandbox<Admin> {
  /** A connector config pointing at the sandbox. */
  config: Record<string, unknown>;
  /** An admin connection, the sandbox selected, for arranging and checking data. */
  admin: Admin;
  /** A query answering `id`: the server's id of the connection it runs on, as connectionAlive takes it. */
  connectionIdSql: string;
  /** Whether the server still has connection `id`. */
  connectionAlive: (id: number) => Promise<boolean>;
  drop(): Promise<void>;
}
