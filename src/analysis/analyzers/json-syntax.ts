// Where JSON text stops being JSON. V8's JSON.parse names a position only for some errors
// ("Unexpected token '}', ... is not valid JSON" has none), so a small scanner of the JSON grammar
// (RFC 8259) finds the first offending character for every error. Iterative, linear in the text.

export interface JsonSyntaxError {
  /** 0-based character offset of the first character that is not valid there */
  offset: number;
  /** 1-based line and column of that character */
  line: number;
  column: number;
  message: string;
  /** the text around it, one line */
  excerpt: string;
}

const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const WHITESPACE = /[ \t\n\r]*/y;
const NAME_EXPECTED = 'a double-quoted property name was expected';

/** The first syntax error in `text`, or null when it is valid JSON. */
export function jsonSyntaxError(text: string): JsonSyntaxError | null {
  let at = 0;
  const fail = (message: string): JsonSyntaxError => located(text, at, message);
  const skip = (): void => {
    WHITESPACE.lastIndex = at;
    WHITESPACE.exec(text);
    at = WHITESPACE.lastIndex;
  };
  const match = (pattern: RegExp): boolean => {
    pattern.lastIndex = at;
    if (!pattern.test(text)) return false;
    at = pattern.lastIndex;
    return true;
  };
  // What the scanner expects next, per open container: a value, or what follows one.
  const open: ('object' | 'array')[] = [];
  let expectValue = true;
  for (;;) {
    skip();
    if (expectValue) {
      const c = text[at];
      if (c === undefined) return fail('unexpected end of JSON, a value was expected');
      if (c === '{' || c === '[') {
        at++;
        skip();
        if (text[at] === (c === '{' ? '}' : ']')) {
          at++;
          expectValue = false;
          continue;
        }
        open.push(c === '{' ? 'object' : 'array');
        if (c === '{') {
          const problem = memberKey();
          if (problem !== null) return fail(problem);
        }
        continue;
      }
      if (c === '"') {
        if (!match(STRING)) return fail('unterminated string or invalid character in a string');
      } else if (!match(NUMBER) && !matchWord('true') && !matchWord('false') && !matchWord('null')) {
        return fail(`unexpected ${describe(c)}, a value was expected`);
      }
      expectValue = false;
      continue;
    }
    const container = open[open.length - 1];
    const c = text[at];
    if (container === undefined) {
      if (c === undefined) return null;
      return fail(`unexpected ${describe(c)} after the end of the JSON value`);
    }
    const close = container === 'object' ? '}' : ']';
    if (c === ',') {
      at++;
      if (container === 'object') {
        skip();
        const problem = memberKey();
        if (problem !== null) return fail(problem === NAME_EXPECTED ? `${NAME_EXPECTED} (no trailing comma)` : problem);
      }
      expectValue = true;
    } else if (c === close) {
      at++;
      open.pop();
    } else {
      return fail(c === undefined ? `unexpected end of JSON, "," or "${close}" was expected` : `unexpected ${describe(c)}, "," or "${close}" was expected`);
    }
  }

  function matchWord(word: string): boolean {
    if (!text.startsWith(word, at)) return false;
    at += word.length;
    return true;
  }

  /** A "name": pair's name and colon, leaving `at` at the value; or what is wrong there. */
  function memberKey(): string | null {
    if (text[at] === undefined) return 'unexpected end of JSON, a property name was expected';
    if (text[at] !== '"') return NAME_EXPECTED;
    if (!match(STRING)) return 'unterminated property name or invalid character in it';
    skip();
    if (text[at] !== ':') return text[at] === undefined ? 'unexpected end of JSON, ":" was expected' : `unexpected ${describe(text[at] as string)}, ":" after the property name was expected`;
    at++;
    expectValue = true;
    return null;
  }
}

function describe(c: string): string {
  return /[\x20-\x7e]/.test(c) ? `"${c}"` : `character U+${c.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}`;
}

function located(text: string, offset: number, message: string): JsonSyntaxError {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  const lineStart = before.lastIndexOf('\n') + 1;
  const lineEnd = text.indexOf('\n', offset);
  const whole = text.slice(lineStart, lineEnd === -1 ? undefined : lineEnd);
  const from = Math.max(0, column - 1 - 40);
  const excerpt = whole.slice(from, from + 80).trim();
  return { offset, line, column, message, excerpt };
}
