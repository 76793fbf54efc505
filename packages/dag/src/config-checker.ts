// Small typed checks over one node's config; each failure becomes an `invalid_node_config` issue
// carrying the config path, so a user sees every wrong field at once.
import type { ValidationIssue } from './dag.model.js';

export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return value.length > 40 ? `"${value.slice(0, 40)}..."` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  // What is left of JS's kinds: a symbol or a function, each with its own toString.
  return (value as symbol | (() => unknown)).toString();
}

export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

export class ConfigChecker {
  constructor(
    private readonly nodeId: string,
    /** Path of the config object, e.g. `nodes[2].config`. */
    readonly basePath: string,
    readonly config: Record<string, unknown>,
    private readonly issues: ValidationIssue[],
    /** What the message calls the object checked: `config`, or '' for the node's own fields. */
    private readonly label = 'config',
  ) {}

  /** `sub` is relative to the config: `mode`, `rules[1].sql`; empty for the config itself. */
  fail(sub: string, message: string): void {
    const path =
      sub === '' ? this.basePath : sub.startsWith('[') ? `${this.basePath}${sub}` : `${this.basePath}.${sub}`;
    const field = sub === '' ? this.label : this.label === '' ? sub : `${this.label}.${sub}`;
    this.issues.push({
      code: 'invalid_node_config',
      message: `node "${this.nodeId}": ${field} ${message}`,
      node_id: this.nodeId,
      path,
    });
  }

  has(key: string): boolean {
    return this.config[key] !== undefined;
  }

  /** A required non-empty string; returns it when valid. */
  requireString(key: string): string | undefined {
    const value = this.config[key];
    if (isNonEmptyString(value)) return value;
    this.fail(key, value === undefined ? 'is required' : `must be a non-empty string (got ${describeValue(value)})`);
    return undefined;
  }

  /** An optional non-empty string: absent is fine, anything else must be one. */
  optionalString(key: string): void {
    const value = this.config[key];
    if (value !== undefined && !isNonEmptyString(value)) {
      this.fail(key, `must be a non-empty string (got ${describeValue(value)})`);
    }
  }

  /** An optional boolean: absent is fine, anything else must be true or false. */
  optionalBoolean(key: string): void {
    const value = this.config[key];
    if (value !== undefined && typeof value !== 'boolean')
      this.fail(key, `must be true or false (got ${describeValue(value)})`);
  }

  /** A required string among `allowed`; returns it when valid. */
  requireOneOf<T extends string>(key: string, allowed: readonly T[]): T | undefined {
    const value = this.config[key];
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
    const expected = allowed.map((a) => `"${a}"`).join(', ');
    this.fail(
      key,
      value === undefined
        ? `is required (one of ${expected})`
        : `must be one of ${expected} (got ${describeValue(value)})`,
    );
    return undefined;
  }

  /** An optional number with `min < value <= max` (exclusiveMin) or `min <= value <= max`. */
  optionalNumber(key: string, range: { min: number; max: number; exclusiveMin?: boolean; integer?: boolean }): void {
    const value = this.config[key];
    if (value === undefined) return;
    const kind = range.integer ? 'an integer' : 'a number';
    const low = range.exclusiveMin ? `greater than ${range.min}` : `from ${range.min}`;
    const ok =
      typeof value === 'number' &&
      Number.isFinite(value) &&
      (!range.integer || Number.isInteger(value)) &&
      (range.exclusiveMin ? value > range.min : value >= range.min) &&
      value <= range.max;
    if (!ok) this.fail(key, `must be ${kind} ${low} to ${range.max} (got ${describeValue(value)})`);
  }

  /**
   * A non-empty array of unique non-empty strings; reports each bad entry by its index.
   * Returns the valid entries, or undefined when the value is not an array at all.
   */
  stringList(key: string, required: boolean): string[] | undefined {
    const value = this.config[key];
    if (value === undefined) {
      if (required) this.fail(key, 'is required (a non-empty list of strings)');
      return undefined;
    }
    if (!Array.isArray(value) || value.length === 0) {
      this.fail(
        key,
        `must be a non-empty list of strings (got ${Array.isArray(value) ? 'an empty list' : describeValue(value)})`,
      );
      return undefined;
    }
    const seen = new Set<string>();
    value.forEach((item: unknown, i) => {
      if (!isNonEmptyString(item)) this.fail(`${key}[${i}]`, `must be a non-empty string (got ${describeValue(item)})`);
      else if (seen.has(item)) this.fail(`${key}[${i}]`, `repeats "${item}"`);
      else seen.add(item);
    });
    return [...seen];
  }
}
