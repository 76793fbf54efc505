import { ConfigError } from '@conduit/service-kit';
import { loadMonitoringConfig, type MonitoringConfig } from './config.js';

/** The validated config, or one clear line on stderr and exit 1: a wrong setting must stop the service at once. */
export function bootConfig(): MonitoringConfig {
  try {
    return loadMonitoringConfig();
  } catch (err) {
    const problems = err instanceof ConfigError ? err.problems.join('; ') : (err as Error).message;
    process.stderr.write(`monitoring: invalid configuration: ${problems}\n`);
    process.exit(1);
  }
}
