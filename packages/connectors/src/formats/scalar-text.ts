/**
 * A value as text: a string as it is, other primitives as String() prints them, symbols and functions by their own
 * toString, and objects (arrays, plain objects) as JSON rather than `[object Object]`.
 */
export function scalarText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return String(value);
    case 'symbol':
    case 'function':
      return value.toString();
    default:
      return JSON.stringify(value);
  }
}
