/**
 * Where a JSON text stops being JSON, for a malformed_json detail: V8's message gives the position for some faults
 * and not for others (`Unexpected token 'a', "abc" is not valid JSON`, `Unexpected end of JSON input`), and quotes
 * the body, which may hold a secret. Called only after JSON.parse threw, on a body already known to nest no deeper
 * than the limit (json-body.ts), so the recursion is bounded; one pass over the text.
 */

/** The index of the first character that cannot continue a JSON text (its length when it ends too soon). */
export function jsonErrorPosition(text: string): number | undefined {
  let i = 0;
  const stop = (): never => {
    throw new JsonStop(i);
  };
  const spaces = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const expect = (char: string): void => {
    if (text[i] !== char) stop();
    i++;
  };
  const digits = (): void => {
    if (!(text[i]! >= '0' && text[i]! <= '9')) stop();
    while (text[i]! >= '0' && text[i]! <= '9') i++;
  };
  const string = (): void => {
    expect('"');
    for (;;) {
      const char = text[i];
      if (char === undefined || char < ' ') stop();
      i++;
      if (char === '"') return;
      if (char !== '\\') continue;
      if (text[i] !== undefined && '"\\/bfnrt'.includes(text[i]!)) i++;
      else if (text[i] === 'u') {
        i++;
        for (let k = 0; k < 4; k++) {
          if (!/[0-9a-fA-F]/.test(text[i] ?? '')) stop();
          i++;
        }
      } else stop();
    }
  };
  const number = (): void => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else digits();
    if (text[i] === '.') {
      i++;
      digits();
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      digits();
    }
  };
  const members = (close: string, member: () => void): void => {
    i++;
    spaces();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      member();
      spaces();
      if (text[i] === close) {
        i++;
        return;
      }
      expect(',');
    }
  };
  const value = (): void => {
    spaces();
    const char = text[i];
    if (char === '{')
      return members('}', () => {
        spaces();
        string();
        spaces();
        expect(':');
        value();
      });
    if (char === '[') return members(']', value);
    if (char === '"') return string();
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return number();
    const word = ['true', 'false', 'null'].find((w) => w[0] === char);
    if (word === undefined) stop();
    for (const letter of word!) expect(letter);
  };
  try {
    value();
    spaces();
    if (i < text.length) stop();
    return undefined;
  } catch (err) {
    if (err instanceof JsonStop) return err.position;
    throw err;
  }
}

/** Thrown where the text stops being JSON, caught at the top: the one way out of the recursion. */
class JsonStop extends Error {
  constructor(readonly position: number) {
    super(`not JSON at ${position}`);
  }
}
