import { ConfigError } from '../config.js';
import { SECRET_GENERATORS, wellKnownSecrets } from './well-known-secrets.js';

/**
 * `CONDUIT_ENV=development` marks a developer's machine (`npm start` sets it); anything else, and unset, is
 * production. Only there may a service start with a secret the repository publishes.
 */
export function isLocalDevelopment(env: NodeJS.ProcessEnv): boolean {
  return env.CONDUIT_ENV === 'development';
}

/** A problem line with how to fix it, when the variable is a secret we know how to make (`SECRETS_KEY: required`). */
function withHint(problem: string): string {
  const variable = problem.slice(0, problem.indexOf(':'));
  const hint = SECRET_GENERATORS[variable];
  return hint && problem.endsWith(': required') ? `${problem} (${hint})` : problem;
}

/**
 * The service's validated configuration, or the one line that says why not: outside local development, every
 * variable that holds a well-known secret, with how to make a fresh one; else every problem of the environment.
 */
export function checkServiceConfig<C>(
  service: string,
  load: (env: NodeJS.ProcessEnv) => C,
  env: NodeJS.ProcessEnv = process.env,
): { config: C } | { line: string } {
  // Before validation: a placeholder that is also malformed (the k8s Secret's SECRETS_KEY) is named as a placeholder.
  const known = isLocalDevelopment(env) ? [] : wellKnownSecrets(env);
  if (known.length > 0) {
    const fixes = known.map(
      (variable) => `${variable} holds a value published in the Conduit repository: ${SECRET_GENERATORS[variable]}`,
    );
    return {
      line: `${service}: refusing to start outside local development (CONDUIT_ENV is not development): ${fixes.join('; ')}`,
    };
  }
  try {
    return { config: load(env) };
  } catch (err) {
    const problems = err instanceof ConfigError ? err.problems.map(withHint).join('; ') : (err as Error).message;
    return { line: `${service}: invalid configuration: ${problems}` };
  }
}

/** {@link checkServiceConfig} at boot: the configuration, or its one line on stderr and exit code 1. */
export function bootConfig<C>(
  service: string,
  load: (env: NodeJS.ProcessEnv) => C,
  env: NodeJS.ProcessEnv = process.env,
): C {
  const checked = checkServiceConfig(service, load, env);
  if ('config' in checked) return checked.config;
  process.stderr.write(`${checked.line}\n`);
  process.exit(1);
}
