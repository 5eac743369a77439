import { z } from 'zod';

// Helpers shared by the text-utilities tools: input bounds and line handling.

/** The longest text any text tool accepts, in UTF-16 code units (what JavaScript's `length` counts). */
export const MAX_TEXT_LENGTH = 1_000_000;

/** A bounded text field. */
export function textField(description: string, max: number = MAX_TEXT_LENGTH) {
  return z.string().max(max).describe(`${description} (at most ${max.toLocaleString('en-US')} characters)`);
}

export interface SplitText {
  lines: string[];
  /** The text ended with a line break, which is kept when the lines are joined again. */
  trailingNewline: boolean;
}

/** Splits on \n, \r\n or \r. An empty text has no lines; a final line break does not start another line. */
export function splitLines(text: string): SplitText {
  if (text === '') return { lines: [], trailingNewline: false };
  const lines = text.split(/\r\n|\n|\r/);
  const trailingNewline = lines.length > 1 && lines[lines.length - 1] === '';
  if (trailingNewline) lines.pop();
  return { lines, trailingNewline };
}

/** Joins lines with \n, restoring a final line break if the input had one. */
export function joinLines(lines: readonly string[], trailingNewline: boolean): string {
  const body = lines.join('\n');
  return trailingNewline && lines.length > 0 ? `${body}\n` : body;
}
