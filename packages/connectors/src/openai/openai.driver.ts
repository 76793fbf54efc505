/** The openai connector driver: Test Connection only; decision nodes call `chatCompletion` with its config. */
import type { ConnectorDriver } from '../types.js';
import { openAiInfo } from './openai.config.js';
import { testOpenAi } from './test-connection.js';

export const openAiDriver: ConnectorDriver = {
  info: openAiInfo,
  test: testOpenAi,
};
