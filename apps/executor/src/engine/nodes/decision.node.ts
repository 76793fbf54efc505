/**
 * `decision`: chooses one of `choices`. By `rules`, each rule's SQL runs in DuckDB over the node's inputs and must
 * answer one boolean; the first true one gives the choice, else `default`. A rule's SQL is the tenant's: exactly one
 * SELECT reading only tables (prepareUserSql, after the SQL-check child bound it: checkPlanIsolated), run as the
 * statement that was checked. Its output rows are its input rows (a view named after the node). By `llm`, a model
 * chooses (decisions/llm).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { prepareUserSql } from '@conduit/connectors';
import { NodeFailure, toNodeFailure } from '../node-failure.js';
import type { NodeContext, NodeResult } from '../node-context.js';
import { decisionViewSql } from '../decisions/decision-view.js';
import { runLlmDecision } from '../decisions/llm/llm-decision.js';
import { countInputs, seedsRandom, withDuckDB } from './duckdb-session.js';
import { asConfigError } from './sql-refusal.js';
import { checkPlanIsolated, withPlanSlot } from './isolated-plan.js';
import { outputColumns } from '../node-columns.js';

interface Rule {
  choice: string;
  sql: string;
}

function rulesOf(config: Record<string, unknown>): Rule[] {
  const rules = config['rules'];
  if (!Array.isArray(rules)) throw new NodeFailure('a rules decision needs config.rules', false);
  return rules.map((rule: unknown, i) => {
    const r = rule as Partial<Rule> | null;
    if (typeof r?.choice !== 'string' || typeof r.sql !== 'string') {
      throw new NodeFailure(`rules[${i}] must be { choice, sql }`, false);
    }
    return { choice: r.choice, sql: r.sql.trim() };
  });
}

async function ruleHolds(ctx: NodeContext, connection: DuckDBConnection, rule: Rule, index: number): Promise<boolean> {
  const subject = `rules[${index}] (${rule.choice}):`;
  await checkPlanIsolated(ctx, connection, rule.sql, `${subject} the SQL`);
  const prepared = await withPlanSlot(() => prepareUserSql(connection, rule.sql, 'select'), ctx.signal).catch(
    (err: unknown) => {
      throw asConfigError(err, `${subject} the SQL`);
    },
  );
  let value: unknown;
  try {
    // Only the first row's first value decides: streamed, so DuckDB computes (and Node holds) a chunk, not every row
    // a rule's SELECT answers (a hundred million, held in the heap, ended the executor).
    const reader = await prepared.streamAndReadUntil(1);
    value = reader.getRows()[0]?.[0];
  } catch (err) {
    // toNodeFailure's wording (an out-of-memory error's limit), not retried: a rule's SQL fails the same way again.
    throw new NodeFailure(`${subject} ${toNodeFailure(err).message}`, false);
  } finally {
    prepared.destroySync();
  }
  return value === true;
}

export async function runDecision(ctx: NodeContext): Promise<NodeResult> {
  const { config } = ctx.node;
  if (config['strategy'] === 'llm') return runLlmDecision(ctx);
  if (config['strategy'] !== 'rules')
    throw new NodeFailure(`unknown decision strategy "${String(config['strategy'])}"`, false);
  const fallback = config['default'];
  if (typeof fallback !== 'string') throw new NodeFailure('a decision needs config.default', false);
  const rules = rulesOf(config);
  return withDuckDB(
    ctx.workspace,
    ctx.signal,
    async (connection) => {
      const rowsIn = await countInputs(ctx.workspace, connection, ctx.inputs);
      let choice = fallback;
      let reason = 'no rule matched: default';
      for (const [index, rule] of rules.entries()) {
        if (await ruleHolds(ctx, connection, rule, index)) {
          choice = rule.choice;
          reason = `rules[${index}] matched: ${rule.sql}`;
          break;
        }
      }
      await connection.run(decisionViewSql(ctx.node.id, ctx.inputs));
      ctx.log('info', `chose "${choice}" (${reason})`);
      return {
        rows_in: rowsIn,
        rows_out: rowsIn,
        output: { choice, reason },
        choice,
        columns: await outputColumns(ctx, connection),
      };
    },
    { keep: !rules.some((rule) => seedsRandom(rule.sql)) },
  );
}
