/**
 * Secrets the repository itself ships (the compose file's old fallbacks, the placeholders of the Kubernetes Secret,
 * examples in the docs): anyone can read them, so a service outside local development refuses to start with one.
 */

/** How to make a fresh value of each secret, told to whoever must set it. */
export const SECRET_GENERATORS: Readonly<Record<string, string>> = {
  SECRETS_KEY: 'generate one with `openssl rand -hex 32` (compose: `npm run generate-env` writes .env)',
  BOOTSTRAP_API_KEY: 'generate one with `openssl rand -hex 24` (compose: `npm run generate-env` writes .env)',
  JWT_SECRET: 'generate one with `openssl rand -hex 32`',
  DATABASE_URL:
    'give the database user a fresh password (`openssl rand -hex 16`; compose: POSTGRES_PASSWORD in .env) and put it in the URL',
  REDIS_URL: 'give Redis a fresh password (`openssl rand -hex 16`) and put it in the URL',
};

/** Exact values published in the repository. */
const PUBLISHED: Readonly<Record<string, readonly string[]>> = {
  SECRETS_KEY: ['000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'],
  BOOTSTRAP_API_KEY: ['cnd_local_change_me_0123456789abcdef'],
};

/** Passwords published in the repository's connection URLs (compose's old POSTGRES_PASSWORD fallback). */
const PUBLISHED_PASSWORDS = ['conduit'];

/** A placeholder that asks to be replaced: `change-me`, `change_me`, `changeme`, any case. */
const PLACEHOLDER = /change[-_ ]?me/i;

/** The URL's password, or undefined when it has none or is not a URL. */
function passwordOf(url: string): string | undefined {
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password === '' ? undefined : password;
  } catch {
    return undefined;
  }
}

function isWellKnown(variable: string, value: string): boolean {
  if (variable === 'DATABASE_URL' || variable === 'REDIS_URL') {
    const password = passwordOf(value);
    return password !== undefined && (PLACEHOLDER.test(password) || PUBLISHED_PASSWORDS.includes(password));
  }
  return PLACEHOLDER.test(value) || (PUBLISHED[variable] ?? []).includes(value.trim());
}

/**
 * The variables of `env` that hold a well-known secret, in the order of {@link SECRET_GENERATORS}. Every variable is
 * checked whichever service reads it: a shared Secret with one placeholder is a deployment nobody finished.
 */
export function wellKnownSecrets(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(SECRET_GENERATORS).filter((variable) => {
    const value = env[variable];
    return value !== undefined && value !== '' && isWellKnown(variable, value);
  });
}
