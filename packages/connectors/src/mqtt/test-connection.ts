/** Test Connection for mqtt: resolve, network_policy, connect (TCP), authenticate (MQTT CONNECT / CONNACK). */
import type { MqttClient } from 'mqtt';
import { invalidConfigResult } from '../config-parser.js';
import { runChecks, type CheckStep } from '../connection-checks.js';
import { openTcp } from '../network-steps.js';
import { policySteps, type ResolvedTarget } from '../network/policy-steps.js';
import type { TestOptions, TestResult } from '../types.js';
import { classifyMqttError, closeMqtt, connectMqtt } from './connection.js';
import { mqttSecrets, parseMqttConfig, type MqttConfig } from './mqtt.config.js';

export async function testMqtt(config: Record<string, unknown>, opts: TestOptions = {}): Promise<TestResult> {
  let cfg: MqttConfig;
  try {
    cfg = parseMqttConfig(config);
  } catch (err) {
    return invalidConfigResult(err);
  }
  const target: ResolvedTarget = { address: cfg.host };
  let client: MqttClient | undefined;

  const steps: CheckStep[] = [
    ...policySteps({ connectorType: 'mqtt', host: cfg.host, port: cfg.port }, target),
    {
      name: 'connect',
      run: (signal) =>
        openTcp(target.address, cfg.port, signal).then(() => `TCP connection to ${cfg.host}:${cfg.port} opened`),
    },
    {
      name: 'authenticate',
      async run(signal) {
        client = await connectMqtt(cfg, {}, signal);
        return cfg.username ? `the broker accepted "${cfg.username}"` : 'the broker accepted an anonymous client';
      },
    },
  ];

  return runChecks(
    {
      steps,
      classify: classifyMqttError,
      details: {},
      secrets: mqttSecrets(cfg),
      cleanup: () => (client ? closeMqtt(client) : undefined),
      successMessage: () => `connected to the MQTT broker at ${cfg.host}:${cfg.port}`,
    },
    opts,
  );
}
