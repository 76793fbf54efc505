/** Test Connection for openai: resolve, network_policy, list_models (GET /models), model (is offered). */
import { invalidConfigResult } from '../config-parser.js';
import { runChecks, type CheckStep } from '../connection-checks.js';
import { classifyHttpError } from '../http/http-errors.js';
import { httpSecrets } from '../http/http.config.js';
import { policySteps, type ResolvedTarget } from '../network/policy-steps.js';
import { urlTarget } from '../network/target-check.js';
import { ConnectorError } from '../connector-error.js';
import type { TestOptions, TestResult } from '../types.js';
import { listModels } from './chat-completion.js';
import { httpSettings, parseOpenAiConfig, type OpenAiConfig } from './openai.config.js';

export async function testOpenAi(config: Record<string, unknown>, opts: TestOptions = {}): Promise<TestResult> {
  let cfg: OpenAiConfig;
  try {
    cfg = parseOpenAiConfig(config);
  } catch (err) {
    return invalidConfigResult(err);
  }
  const details: Record<string, unknown> = {};
  let models: string[] = [];
  const resolved: ResolvedTarget = { address: '' };

  const steps: CheckStep[] = [
    ...policySteps(urlTarget('openai', cfg.base_url), resolved),
    {
      name: 'list_models',
      async run(signal) {
        models = await listModels(cfg, signal);
        details['models'] = models.slice(0, 100);
        return `the endpoint offers ${models.length} models`;
      },
    },
    {
      name: 'model',
      run() {
        if (!models.includes(cfg.model)) {
          const some = models.slice(0, 10).join(', ');
          throw new ConnectorError(
            `model "${cfg.model}" is not offered (some that are: ${some || 'none'})`,
            'config_error',
          );
        }
        return Promise.resolve(`model "${cfg.model}" is offered`);
      },
    },
  ];

  return runChecks(
    {
      steps,
      classify: classifyHttpError,
      details,
      secrets: httpSecrets(httpSettings(cfg)),
      successMessage: () => `model "${cfg.model}" is available at ${new URL(cfg.base_url).origin}`,
    },
    opts,
  );
}
