/**
 * Checks a five-field cron expression (minute, hour, day of month, month, day of week) and names the field at
 * fault. Computing fire times is the cron library's job (cron-parser, in the scheduler); this check exists so that
 * a 422 can say which field is wrong, which the library's messages do not, and so that six-field (seconds)
 * expressions, which the library accepts, are refused.
 */
const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
  },
  // 7 is Sunday too, as in Vixie cron.
  { name: 'day of week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
] as const;

type Field = (typeof FIELDS)[number];

function valueOf(field: Field, text: string): number | undefined {
  if (/^\d{1,2}$/.test(text)) return Number(text);
  if ('names' in field) {
    const index = (field.names as readonly string[]).indexOf(text.toUpperCase());
    if (index >= 0) return field.name === 'month' ? index + 1 : index;
  }
  return undefined;
}

function checkItem(field: Field, item: string): string | undefined {
  const [range, step, ...extra] = item.split('/');
  if (extra.length > 0 || range === undefined || range === '') return `"${item}" is not a valid ${field.name}`;
  if (step !== undefined && !(/^\d{1,2}$/.test(step) && Number(step) > 0 && Number(step) <= field.max)) {
    return `step "${step}" of the ${field.name} must be a number from 1 to ${field.max}`;
  }
  if (range === '*') return undefined;
  const bounds = range.split('-');
  if (bounds.length > 2) return `"${range}" is not a valid ${field.name} range`;
  const values: number[] = [];
  for (const bound of bounds) {
    const value = valueOf(field, bound);
    if (value === undefined) return `"${bound}" is not a valid ${field.name}`;
    if (value < field.min || value > field.max) {
      return `${field.name} ${value} is out of range ${field.min}-${field.max}`;
    }
    values.push(value);
  }
  if (values.length === 2 && values[0]! > values[1]!) return `${field.name} range "${range}" runs backwards`;
  return undefined;
}

/** The values a checked field allows, read as cron-parser reads them (`5/15` is 5 to the field's end, by 15). */
function valuesOf(field: Field, text: string): number[] {
  const values: number[] = [];
  for (const item of text.split(',')) {
    const [range, step] = item.split('/') as [string, string?];
    const by = step === undefined ? 1 : Number(step);
    const bounds = range === '*' ? [field.min, field.max] : range.split('-').map((b) => valueOf(field, b)!);
    const to = bounds[1] ?? (step === undefined ? bounds[0]! : field.max);
    for (let v = bounds[0]!; v <= to; v += by) values.push(v);
  }
  return values;
}

/** Days of each month in a leap year: a month and day that ever come together come in a leap year (29 February). */
const LEAP_MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

/**
 * A message when no date ever matches the (checked) day-of-month, month and day-of-week fields, such as `31 4,6,9,11
 * *` or `30 2 *`: decided on the twelve months of a leap year, not by searching years. As cron-parser (the
 * scheduler's library) reads a schedule, a day of week other than `*` is restricted, and when both day fields are, a
 * day matches when either does: such a schedule fires every week whatever its days of month.
 */
function neverFires(dayOfMonth: string, month: string, dayOfWeek: string): string | undefined {
  if (dayOfWeek !== '*') return undefined;
  const days = valuesOf(FIELDS[2], dayOfMonth);
  const months = [...new Set(valuesOf(FIELDS[3], month))];
  if (months.some((m) => days.some((d) => d <= LEAP_MONTH_DAYS[m - 1]!))) return undefined;
  const names = months.map((m) => MONTH_NAMES[m - 1]!);
  const monthText = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)!}` : names[0]!;
  return `day of month ${dayOfMonth} never comes in ${monthText}: the schedule never fires`;
}

function fieldsOf(expression: string): string[] {
  return expression
    .trim()
    .split(/\s+/)
    .filter((p) => p !== '');
}

/**
 * A message when a checked field's list names a value twice (`1,1`, `1-5,3`, `*\/5,10`, Sunday as `0,7`):
 * cron-parser, which computes the fire times, refuses such a field, so a job holding it would never fire.
 */
function repeatedValue(field: Field, text: string): string | undefined {
  if (!text.includes(',')) return undefined;
  const seen = new Set<number>();
  for (const raw of valuesOf(field, text)) {
    const value = field.name === 'day of week' && raw === 7 ? 0 : raw;
    if (seen.has(value)) return `${field.name} "${text}" lists ${value} twice`;
    seen.add(value);
  }
  return undefined;
}

/** The first field at fault of five, if any (not whether the dates ever come). */
function fieldProblem(parts: readonly string[]): string | undefined {
  for (let i = 0; i < 5; i++) {
    const field = FIELDS[i]!;
    for (const item of parts[i]!.split(',')) {
      const problem = checkItem(field, item);
      if (problem) return problem;
    }
    const repeated = repeatedValue(field, parts[i]!);
    if (repeated) return repeated;
  }
  return undefined;
}

/** undefined when the expression is valid, else a message naming the field at fault. */
export function checkCron(expression: string): string | undefined {
  const parts = fieldsOf(expression);
  if (parts.length !== 5) {
    return `expected 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`;
  }
  return fieldProblem(parts) ?? neverFires(parts[2]!, parts[3]!, parts[4]!);
}

/**
 * True for an expression whose fields are valid but whose dates never come (what checkCron refuses as never firing),
 * decided without searching: the scheduler answers such a stored schedule "never" at once. A six-field expression
 * (seconds first, which only the scheduler's own tests store) is read on its last five fields.
 */
export function cronNeverFires(expression: string): boolean {
  const parts = fieldsOf(expression);
  const five = parts.length === 6 ? parts.slice(1) : parts;
  return (
    five.length === 5 && fieldProblem(five) === undefined && neverFires(five[2]!, five[3]!, five[4]!) !== undefined
  );
}

/** True for a time zone the runtime knows (IANA names such as `Europe/Paris`, and `UTC`). */
/**
 * The zone's canonical name as the runtime's ICU spells it (`america/new_york` -> `America/New_York`, `US/Eastern`
 * too): one key for one zone wherever a zone keys a cache. Not for display: ICU's canonical names are older ones
 * (`Asia/Kolkata` -> `Asia/Calcutta`). Undefined when the name is no zone.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (name.length === 0 || name.length > 64) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

export function isTimeZone(name: string): boolean {
  if (name.length === 0 || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
