/**
 * Secrets taken out of text a server, a library or a node wrote (Test Connection messages, a run's errors and log
 * lines). A server echoes what it was sent in its own spelling: JSON-escaped inside a body, percent-encoded in a URL,
 * lower-cased in a header dump. Each secret is looked for in those forms too, whatever the letters' case.
 */
import { SECRET_MASK } from './secret-mask.js';

/** Secrets at least this long are masked where they stand; a shorter one that occurs withholds the whole text. */
export const MIN_MASKED_SECRET_LENGTH = 8;
export const WITHHELD_MESSAGE = '(message withheld: it contains the value of a secret field)';

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** The forms a secret reaches text in: as written, JSON-escaped, percent-encoded. */
function writtenForms(secret: string): string[] {
  return [...new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)])];
}

/** One case-insensitive pattern for every form of every secret, the longest forms first; null for none. */
function patternOf(secrets: readonly string[], flags: string): RegExp | null {
  const forms = [...new Set(secrets.flatMap(writtenForms))].sort((a, b) => b.length - a.length);
  return forms.length === 0 ? null : new RegExp(forms.map(escapeRegExp).join('|'), flags);
}

/**
 * A function answering a text without any of `secrets`. A long secret is replaced by SECRET_MASK where it occurs. A
 * short one would occur by chance inside ordinary words, and masking every occurrence would spell it out (`does not
 * e********ist` for the password `x`): the whole text is withheld instead. Build it once for many texts.
 */
export function secretScrubber(secrets: readonly string[]): (text: string) => string {
  const present = secrets.filter((s) => s.length > 0);
  const long = patternOf(
    present.filter((s) => s.length >= MIN_MASKED_SECRET_LENGTH),
    'gi',
  );
  const short = patternOf(
    present.filter((s) => s.length < MIN_MASKED_SECRET_LENGTH),
    'i',
  );
  return (text) => {
    if (short?.test(text)) return WITHHELD_MESSAGE;
    return long ? text.replace(long, SECRET_MASK) : text;
  };
}

/** `text` without any of `secrets` (see secretScrubber). */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  return secretScrubber(secrets)(text);
}
