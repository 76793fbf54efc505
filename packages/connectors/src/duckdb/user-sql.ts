/**
 * The one check of SQL a user writes (transform and rules-decision SQL, a duckdb source `query`, a duckdb sql node's
 * statement), done by DuckDB's own parser rather than by looking for words: exactly one statement, of a kind the
 * node allows, whose parse tree (json_serialize_sql) and bound plan (json_serialize_plan) read only tables: no table
 * function but a few that make rows from values, no view of DuckDB's own settings or catalog, no function that reads
 * settings or counters or only waits, whether written out or reached through a view or macro.
 * DuckDB's locks (sandbox.ts) are what stop files being read or written; this check is what lets the error say what
 * is not allowed, closes what the locks leave open (settings, paths in the catalog), and lets the catalog say it at
 * save time.
 */
import duckdb, {
  type DuckDBConnection,
  type DuckDBPreparedStatement,
  type StatementType as DuckDBStatementType,
} from '@duckdb/node-api';
import { ConnectorError } from '../connector-error.js';
import { scalarText } from '../formats/scalar-text.js';
import { withParsingConnection } from './sandbox.js';
import {
  planProblem,
  refusedCallInText,
  refusedStatementInText,
  systemViewNames,
  text,
  treeProblem,
  type JsonObject,
} from './sql-problems.js';
import { readAll } from './read-all.js';

const { StatementType } = duckdb;

/** `select`: exactly one SELECT (transform, rules, source query). `statement`: one data or DDL statement (sql node). */
export type UserSqlKind = 'select' | 'statement';

const DATA_STATEMENTS: ReadonlySet<number> = new Set([
  StatementType.SELECT,
  StatementType.INSERT,
  StatementType.UPDATE,
  StatementType.DELETE,
  StatementType.MERGE_INTO,
  StatementType.CREATE,
  StatementType.DROP,
  StatementType.ALTER,
]);

const refuse = (message: string): ConnectorError => new ConnectorError(message, 'config_error');

// Duck-typed: errors of the native binding come from another realm, so `instanceof Error` is false for them.
const messageOf = (err: unknown): string => {
  const own = (err as { message?: unknown } | null)?.message;
  return typeof own === 'string' ? own : String(err);
};

/** How a refusal of text DuckDB's parser cannot read begins (the catalog tells a typo from SQL it refuses by it). */
export const NOT_VALID_SQL = 'is not valid SQL';

/** The first line of DuckDB's message without its class prefixes (`Failed to extract statements: Parser Error: `). */
const oneLine = (message: string): string =>
  (message.split('\n')[0] ?? message).replace(/^(Failed to extract statements: |[A-Za-z ]*Error: )+/, '').trim();

const typeName = (type: number): string => (StatementType[type] ?? 'unknown').toLowerCase().replace(/_/g, ' ');

/**
 * What DuckDB's parser makes of `sql` (json_serialize_sql, which serializes SELECTs only): `select` with the problem
 * of its tree (undefined when it reads only tables), or `other` for any other kind of statement.
 */
type TreeVerdict = { kind: 'select'; problem: string | undefined } | { kind: 'other' };

/**
 * Verdicts of parseTree by SQL text. A verdict is a function of the text alone (DuckDB's parser and its own view
 * names, fixed for the process), and a pipeline's SQL is the same at every run: serializing its tree is the dearest
 * step of the check (~0.6 ms), so a text seen lately is not parsed into JSON again. Bounded: the most recent
 * TREE_VERDICTS_MAX texts of at most TREE_VERDICT_TEXT_MAX characters (a refusal is kept too; a parse error, or any
 * other error of the serializer, is not).
 */
// Only a text extractOne found to be exactly one statement is ever checkTree'd (every caller extracts first unless
// the text's verdict is held), so a held verdict also says the text is one statement: the callers rely on it.
const treeVerdicts = new Map<string, TreeVerdict>();
const TREE_VERDICTS_MAX = 1000;
const TREE_VERDICT_TEXT_MAX = 16 * 1024;

async function parseTree(connection: DuckDBConnection, sql: string): Promise<TreeVerdict> {
  const known = treeVerdicts.get(sql);
  if (known) {
    // Most recent last: the oldest is the first evicted.
    treeVerdicts.delete(sql);
    treeVerdicts.set(sql, known);
    return known;
  }
  const { verdict, lasting } = await serializedTreeVerdict(connection, sql);
  if (lasting && sql.length <= TREE_VERDICT_TEXT_MAX) {
    treeVerdicts.set(sql, verdict);
    if (treeVerdicts.size > TREE_VERDICTS_MAX) treeVerdicts.delete(treeVerdicts.keys().next().value!);
  }
  return verdict;
}

/**
 * The verdict, and whether it is one of the text alone (`lasting`): a SELECT's tree, or DuckDB's answer that only a
 * SELECT serializes. Any other error (out of memory, say) says nothing lasting of the text and is not kept.
 */
async function serializedTreeVerdict(
  connection: DuckDBConnection,
  sql: string,
): Promise<{ verdict: TreeVerdict; lasting: boolean }> {
  const reader = await readAll(connection.run('select json_serialize_sql($1::varchar)', [sql]));
  const tree = JSON.parse(String(reader.getRows()[0]?.[0] ?? '{}')) as JsonObject;
  if (tree['error'] === true) {
    if (text(tree['error_type']) === 'parser') throw refuse(`${NOT_VALID_SQL}: ${scalarText(tree['error_message'])}`);
    return { verdict: { kind: 'other' }, lasting: text(tree['error_type']) === 'not implemented' };
  }
  const problem = treeProblem(tree['statements'] ?? null, await systemViewNames(), new Set());
  return { verdict: { kind: 'select', problem }, lasting: true };
}

/**
 * Refuses a SELECT whose tree reaches beyond its tables, and anything but a SELECT where only a SELECT may be;
 * answers whether the parser saw a SELECT.
 */
async function checkTree(connection: DuckDBConnection, sql: string, kind: UserSqlKind): Promise<boolean> {
  const tree = await parseTree(connection, sql);
  if (tree.kind === 'select' && tree.problem) throw refuse(tree.problem);
  if (tree.kind === 'other' && kind === 'select') throw refuse('must be one SELECT statement');
  return tree.kind === 'select';
}

const FILE_REFUSAL = "may not read or write files: SQL reads only the pipeline's own tables";
const isPermissionError = (err: unknown): boolean => /Permission Error/.test(messageOf(err));

/**
 * What the statement's bound plan reaches beyond its tables (sql-problems.ts), as a message. The plan sees what the
 * parse tree cannot: views, macros and table macros (made by the tenant earlier, nested or not) expanded, the query
 * inside a CREATE or INSERT, and the bodies a CREATE stores. A statement DuckDB cannot serialize so is refused: what
 * it runs would go unchecked.
 */
async function boundPlanProblem(connection: DuckDBConnection, sql: string): Promise<string | undefined> {
  const plan = JSON.parse(await serializedPlan(connection, sql)) as JsonObject;
  if (plan['error'] === true) {
    if (text(plan['error_type']) === 'permission') return FILE_REFUSAL;
    return `cannot be checked, which is not allowed: DuckDB cannot show its plan (${oneLine(scalarText(plan['error_message']))})`;
  }
  return planProblem(plan['plans'] ?? null);
}

interface PlanStatement {
  prepared: DuckDBPreparedStatement;
  /** One check at a time per connection: a bind and its run must not interleave with another's. */
  turn: Promise<unknown>;
}

/** Each connection's `json_serialize_plan($1)`, prepared once: parsing and binding it again cost half the check. */
const planStatements = new WeakMap<DuckDBConnection, Promise<PlanStatement>>();

/** json_serialize_plan of `sql` (bound as a value, never spliced into the statement) on `connection`. */
async function serializedPlan(connection: DuckDBConnection, sql: string): Promise<string> {
  let entry = planStatements.get(connection);
  if (!entry) {
    entry = connection
      .prepare('select json_serialize_plan($1::varchar)')
      .then((prepared) => ({ prepared, turn: Promise.resolve() }));
    planStatements.set(connection, entry);
    entry.catch(() => planStatements.delete(connection));
  }
  const statement = await entry;
  const serialized = statement.turn.then(async () => {
    statement.prepared.bindVarchar(1, sql);
    const reader = await readAll(statement.prepared.run());
    return String(reader.getRows()[0]?.[0] ?? '{}');
  });
  statement.turn = serialized.catch(() => undefined);
  return serialized;
}

const NO_STATEMENT = `${NOT_VALID_SQL}: it holds no statement, only comments or spaces`;
/**
 * node-bindings' error for a text DuckDB extracts no statement from (spaces, comments, a lone `;`): its own message
 * only says its callback failed.
 */
const NOTHING_EXTRACTED = 'Error in native callback';

/** Exactly one statement, or the message saying why not. */
async function extractOne(connection: DuckDBConnection, sql: string) {
  let extracted;
  try {
    extracted = await connection.extractStatements(sql);
  } catch (err) {
    const message = messageOf(err);
    throw refuse(message === NOTHING_EXTRACTED ? NO_STATEMENT : `${NOT_VALID_SQL}: ${oneLine(message)}`);
  }
  if (extracted.count === 0) throw refuse(NO_STATEMENT);
  if (extracted.count > 1) throw refuse(`holds ${extracted.count} statements: only one statement is allowed`);
  return extracted;
}

/**
 * DuckDB's prepare of a text that is not exactly one statement (it runs none): what extractOne would have said, so
 * that even should a text reach prepare unextracted, it is refused with a reason, at save time too.
 */
function statementCountRefusal(err: unknown): ConnectorError | undefined {
  const message = messageOf(err);
  if (/Cannot prepare multiple statements at once/.test(message))
    return refuse('holds more than one statement: only one statement is allowed');
  if (/No statement to prepare/.test(message)) return refuse(NO_STATEMENT);
  return undefined;
}

/** `parsedSelect`: the parser saw a SELECT; a PRAGMA or SHOW is rewritten into one and prepares as SELECT too. */
function checkType(type: DuckDBStatementType, kind: UserSqlKind, parsedSelect: boolean): void {
  if (kind === 'select' && type !== StatementType.SELECT)
    throw refuse(`must be one SELECT statement, not ${typeName(type)}`);
  if (type === StatementType.SELECT && !parsedSelect)
    throw refuse(
      'is a pragma, which is not allowed: only select, insert, update, delete, merge, create, drop and alter',
    );
  if (kind === 'statement' && !DATA_STATEMENTS.has(type)) {
    throw refuse(
      `is a ${typeName(type)} statement, which is not allowed: only select, insert, update, delete, merge, create, drop and alter`,
    );
  }
}

/**
 * The whole check on `connection`, answering the statement prepared as checked. A statement that fails to bind for
 * any reason but a file (an unknown table) is thrown as DuckDB's error, or answered undefined when `unbound` is
 * 'pass' (save time, where the run's tables do not exist yet: the run checks it again).
 */
async function checkedStatement(
  c: DuckDBConnection,
  sql: string,
  kind: UserSqlKind,
  unbound: 'throw',
): Promise<DuckDBPreparedStatement>;
async function checkedStatement(
  c: DuckDBConnection,
  sql: string,
  kind: UserSqlKind,
  unbound: 'pass',
): Promise<DuckDBPreparedStatement | undefined>;
async function checkedStatement(
  connection: DuckDBConnection,
  sql: string,
  kind: UserSqlKind,
  unbound: 'throw' | 'pass',
): Promise<DuckDBPreparedStatement | undefined> {
  const written = refusedCallInText(sql) ?? refusedStatementInText(sql);
  if (written) throw refuse(written);
  // A text with a verdict held was found to be exactly one statement before (as in checkUserSelect): prepared from the
  // text, one DuckDB call less a run's node. DuckDB's own prepare refuses more than one statement, running none.
  const extracted = treeVerdicts.has(sql) ? undefined : await extractOne(connection, sql);
  const parsedSelect = await checkTree(connection, sql, kind);
  let prepared: DuckDBPreparedStatement;
  try {
    prepared = await (extracted ? extracted.prepare(0) : connection.prepare(sql));
  } catch (err) {
    if (isPermissionError(err)) throw refuse(FILE_REFUSAL);
    const refusal = statementCountRefusal(err);
    if (refusal) throw refusal;
    if (unbound === 'pass') return undefined;
    throw err;
  }
  try {
    checkType(prepared.statementType, kind, parsedSelect);
    const problem = await boundPlanProblem(connection, sql);
    if (problem) throw refuse(problem);
  } catch (err) {
    prepared.destroySync();
    throw err;
  }
  return prepared;
}

/**
 * The part of the check that needs no tables: `sql` is exactly one SELECT whose parse tree reads only tables. For a
 * query the caller then runs inside a statement that prepareUserSql checks whole (a transform's `CREATE TABLE ... AS
 * (<sql>)`): that check prepares and explains what really runs, so preparing and explaining the query alone first
 * would only repeat it. Throws as prepareUserSql does.
 */
export async function checkUserSelect(connection: DuckDBConnection, sql: string): Promise<void> {
  const written = refusedCallInText(sql);
  if (written) throw refuse(written);
  // A text with a verdict held was found to be exactly one statement before (see treeVerdicts), and the parser, fixed
  // for the process, says the same of it again: one DuckDB call less a run's node.
  if (!treeVerdicts.has(sql)) await extractOne(connection, sql);
  await checkTree(connection, sql, 'select');
}

/**
 * Checks `sql` on `connection` (a sandboxed one: preparing binds, and binding a file reader touches the file) and
 * answers it prepared, ready to run as checked. Throws a config_error ConnectorError whose message completes
 * "the SQL ..." (e.g. `holds 2 statements: only one statement is allowed`).
 */
export async function prepareUserSql(
  connection: DuckDBConnection,
  sql: string,
  kind: UserSqlKind,
): Promise<DuckDBPreparedStatement> {
  return checkedStatement(connection, sql, kind, 'throw');
}

/**
 * The same check where the tables do not exist yet (a pipeline saved in the catalog): the message of what is not
 * allowed, or null. A statement that only fails to bind (an unknown table) passes here; the run checks it again.
 */
export async function userSqlProblem(sql: string, kind: UserSqlKind): Promise<string | null> {
  return withParsingConnection(async (connection) => {
    try {
      (await checkedStatement(connection, sql, kind, 'pass'))?.destroySync();
      return null;
    } catch (err) {
      if (err instanceof ConnectorError) return err.message;
      throw err;
    }
  });
}
