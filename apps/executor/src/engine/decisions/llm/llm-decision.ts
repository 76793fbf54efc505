/**
 * `decision` by `llm`: exposes the node's input as its output view, shows the model the first rows, the row count,
 * the columns and the run parameters through the prompt template, and routes by the model's answer (or `default`).
 * Output and logs carry the prompt's hash, never the prompt (it holds data) nor the api key.
 */
import { ConnectorError, parseOpenAiConfig, type OpenAiConfig } from '@conduit/connectors';
import type { NodeContext, NodeResult } from '../../node-context.js';
import { NodeFailure } from '../../node-failure.js';
import { PLATFORM_SQL, withDuckDB } from '../../nodes/duckdb-session.js';
import { decisionViewSql } from '../decision-view.js';
import { outputColumns, type NodeColumns } from '../../node-columns.js';
import { readDecisionInput, type DecisionInput } from './decision-input.js';
import { llmDecisionConfigOf } from './llm-decision-config.js';
import { runLlmExchange } from './llm-exchange.js';
import { connectorChatClient } from './connector-chat-client.js';
import { renderPrompt } from './prompt-render.js';

/** Time kept back from the node's timeout for the rest of the node, so a late model means default, not a timeout. */
const reserveMs = (nodeTimeoutMs: number): number => Math.min(1000, nodeTimeoutMs * 0.2);

export async function runLlmDecision(ctx: NodeContext): Promise<NodeResult> {
  const startedMs = Date.now();
  const config = llmDecisionConfigOf(ctx.node.config);
  const connector = ctx.llmConnector();
  let settings: OpenAiConfig;
  try {
    settings = parseOpenAiConfig(connector.config);
  } catch (err) {
    // The validation message names the fields, never their values.
    if (err instanceof ConnectorError)
      throw new NodeFailure(`connector "${connector.id}": ${err.message}`, false, 'config_error');
    throw err;
  }

  const { input, columns } = await withDuckDB(
    ctx.workspace,
    ctx.signal,
    async (connection): Promise<{ input: DecisionInput; columns: NodeColumns }> => {
      await connection.run(decisionViewSql(ctx.node.id, ctx.inputs));
      return {
        input: await readDecisionInput(connection, ctx.node.id, config.sampleRows),
        columns: await outputColumns(ctx, connection),
      };
    },
    PLATFORM_SQL,
  );
  const prompt = renderPrompt(config.prompt, input, ctx.parameters);
  if (prompt.missingParams.length > 0) {
    ctx.log('warn', `prompt: no run parameter ${prompt.missingParams.map((p) => `"${p}"`).join(', ')}; rendered empty`);
  }

  const nodeBudgetMs =
    config.nodeTimeoutMs === undefined
      ? Infinity
      : config.nodeTimeoutMs - reserveMs(config.nodeTimeoutMs) - (Date.now() - startedMs);
  const deadlineMs = Math.max(1, Math.floor(Math.min(settings.timeout_ms, nodeBudgetMs)));
  ctx.log(
    'info',
    `llm: asking ${settings.model} to choose among ${config.choices.join(', ')} (prompt sha256 ${prompt.hash}, ${input.row_count} rows, deadline ${deadlineMs} ms)`,
  );
  const decision = await runLlmExchange({
    client: connectorChatClient(connector.config, settings),
    connectorId: connector.id,
    choices: config.choices,
    default: config.default,
    minConfidence: config.minConfidence,
    prompt: prompt.text,
    deadlineMs,
    signal: ctx.signal,
    log: (level, message) => ctx.log(level, message),
  });
  const { tokens } = decision;
  ctx.log(
    'info',
    `chose "${decision.choice}"${decision.fell_back ? ' (default)' : ''} after ${decision.attempts} request(s) in ${decision.latency_ms} ms, ` +
      `tokens ${tokens.prompt}+${tokens.completion}=${tokens.total}: ${decision.reason}`,
  );
  return {
    rows_in: input.row_count,
    rows_out: input.row_count,
    output: { ...decision, prompt_hash: prompt.hash },
    choice: decision.choice,
    columns,
  };
}
