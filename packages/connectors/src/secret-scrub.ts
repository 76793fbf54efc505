/**
 * Secrets taken out of text a server, a library or a node wrote (Test Connection messages, a run's errors and log
 * lines). A server echoes what it was sent in its own spelling: JSON-escaped inside a body (`\"`, `\\`, `\/`,
 * `\u00f6`), percent-encoded in a URL or a form (`%2F`, `+`), lower-cased in a header dump. Each secret is looked
 * for in those forms too, whatever the ASCII letters' case. Plain `indexOf` over the text per form: the secrets are a
 * tenant's (a run may hold hundreds, each kilobytes long), so no pattern is compiled from them.
 */
import { SECRET_MASK } from './secret-mask.js';

/** Secrets at least this long are masked where they stand; a shorter one that occurs withholds the whole text. */
export const MIN_MASKED_SECRET_LENGTH = 8;
export const WITHHELD_MESSAGE = '(message withheld: it contains the value of a secret field)';
/** The most characters one written form of a secret takes per character of it (`\u00f6`). */
export const MAX_FORM_GROWTH = 6;

/** ASCII letters lower-cased, every other character kept: the same length, so positions carry over. */
const asciiLower = (text: string): string => text.replace(/[A-Z]+/g, (run) => run.toLowerCase());

const jsonEscaped = (secret: string): string => JSON.stringify(secret).slice(1, -1);
const asciiJson = (secret: string): string =>
  jsonEscaped(secret).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A secret as written, JSON-escaped (also with `\/` and as ASCII), percent-encoded (also `+` for a space). */
function writtenForms(secret: string): string[] {
  const forms = [secret, jsonEscaped(secret), asciiJson(secret), jsonEscaped(secret).replaceAll('/', '\\/')];
  try {
    const encoded = encodeURIComponent(secret);
    forms.push(encoded, encoded.replaceAll('%20', '+'));
  } catch {
    // A lone surrogate has no percent-encoding (and a server could not have received one).
  }
  return [...new Set(forms.map(asciiLower))];
}

/**
 * A run of this many characters from the start of a long secret (its first FRAGMENT_SOURCE_LENGTH), wherever it
 * stands, is masked too: a server that echoes only part of what it was sent (`invalid token tok_LiveProd...
 * (truncated)`) still shows that part. Ten characters of a key are not in ordinary text by chance; only the start is
 * indexed, where a cut echo begins, so that a tenant's hundreds of kilobyte-long secrets stay cheap to look for.
 */
export const SECRET_FRAGMENT_LENGTH = 10;
const FRAGMENT_SOURCE_LENGTH = 128;

/** Every run of SECRET_FRAGMENT_LENGTH characters in the start of each of `secrets`, ASCII letters lower-cased. */
function fragmentsOf(secrets: readonly string[]): Set<string> {
  const fragments = new Set<string>();
  for (const secret of secrets) {
    const start = asciiLower(secret.slice(0, FRAGMENT_SOURCE_LENGTH));
    for (let at = 0; at + SECRET_FRAGMENT_LENGTH <= start.length; at++)
      fragments.add(start.slice(at, at + SECRET_FRAGMENT_LENGTH));
  }
  return fragments;
}

/** The [start, end) ranges where any of `forms`, or any of `fragments`, occurs in `lower`. */
function occurrences(lower: string, forms: readonly string[], fragments: ReadonlySet<string>): [number, number][] {
  const found: [number, number][] = [];
  for (const form of forms) {
    for (let at = lower.indexOf(form); at !== -1; at = lower.indexOf(form, at + 1)) found.push([at, at + form.length]);
  }
  if (fragments.size > 0)
    for (let at = 0; at + SECRET_FRAGMENT_LENGTH <= lower.length; at++)
      if (fragments.has(lower.slice(at, at + SECRET_FRAGMENT_LENGTH))) found.push([at, at + SECRET_FRAGMENT_LENGTH]);
  return found;
}

/**
 * A function answering a text without any of `secrets`. A long secret is replaced by SECRET_MASK where it occurs, and
 * so is any run of SECRET_FRAGMENT_LENGTH characters of its start (a part a server echoed). A
 * short one would occur by chance inside ordinary words, and masking every occurrence would spell it out (`does not
 * e********ist` for the password `x`): the whole text is withheld instead. Build it once for many texts.
 */
export function secretScrubber(secrets: readonly string[]): (text: string) => string {
  const present = [...new Set(secrets.filter((s) => s.length > 0))];
  const longForms = [...new Set(present.filter((s) => s.length >= MIN_MASKED_SECRET_LENGTH).flatMap(writtenForms))];
  const shortForms = [...new Set(present.filter((s) => s.length < MIN_MASKED_SECRET_LENGTH).flatMap(writtenForms))];
  if (longForms.length === 0 && shortForms.length === 0) return (text) => text;
  const fragments = fragmentsOf(present.filter((s) => s.length >= MIN_MASKED_SECRET_LENGTH));
  return (text) => {
    const lower = asciiLower(text);
    if (shortForms.some((form) => lower.includes(form))) return WITHHELD_MESSAGE;
    const found = occurrences(lower, longForms, fragments).sort((a, b) => a[0] - b[0]);
    if (found.length === 0) return text;
    // Overlapping or touching occurrences are masked as one.
    let out = '';
    let kept = 0;
    for (let i = 0; i < found.length;) {
      const start = found[i]![0];
      let end = found[i]![1];
      for (i++; i < found.length && found[i]![0] <= end; i++) end = Math.max(end, found[i]![1]);
      out += text.slice(kept, start) + SECRET_MASK;
      kept = end;
    }
    return out + text.slice(kept);
  };
}

/** `text` without any of `secrets` (see secretScrubber). */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  return secretScrubber(secrets)(text);
}

/** How deep scrubbedValue walks; a value nested deeper is scrubbed as its JSON text. */
const MAX_SCRUB_DEPTH = 64;

/** JSON text of anything, BigInt as its digits; never throws (a cycle is answered as its place). */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner));
  } catch {
    return '[unserializable]';
  }
}

/**
 * `value` (JSON-like: strings, numbers, booleans, null, arrays, plain objects) with `scrub` applied to every string,
 * every key and every number's digits in it (a number that holds a secret becomes the scrubbed text): for what a
 * server sent back and the platform shows (an LLM's reason, a test's details, column names), which may hold a secret
 * as well as a message may.
 */
export function scrubbedValue<T>(value: T, scrub: (text: string) => string, depth = 0): T {
  if (typeof value === 'string') return scrub(value) as T;
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value);
    const scrubbed = scrub(digits);
    return (scrubbed === digits ? value : scrubbed) as T;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_SCRUB_DEPTH) return scrub(jsonText(value)) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => scrubbedValue(item, scrub, depth + 1)) as T;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [scrub(key), scrubbedValue(item, scrub, depth + 1)]),
  ) as T;
}
