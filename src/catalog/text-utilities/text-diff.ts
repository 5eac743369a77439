import { z } from 'zod';
import { defineTool, poolAbove } from '../../core/define-tool.ts';
import { invalidInput } from '../../core/errors.ts';
import { diffSequences, type DiffOp } from './myers-diff.ts';
import { splitLines, textField } from './text-shared.ts';

/** Most lines per text: keeps the O((N+M)·D) diff well under a second. */
export const MAX_DIFF_LINES = 5000;

const diffLine = z.object({
  type: z.enum(['added', 'removed', 'unchanged']),
  oldLine: z.number().int().nullable().describe('1-based line number in the old text (null for added lines)'),
  newLine: z.number().int().nullable().describe('1-based line number in the new text (null for removed lines)'),
  text: z.string(),
});
type DiffLine = z.infer<typeof diffLine>;

function rangeText(start: number, count: number): string {
  return count === 1 ? `${start}` : `${start},${count}`;
}

/** GNU-style unified diff of the edit script, `context` unchanged lines around each change. */
function unifiedDiff(lines: readonly DiffLine[], context: number, oldName: string, newName: string): string {
  const changes: number[] = [];
  lines.forEach((l, i) => {
    if (l.type !== 'unchanged') changes.push(i);
  });
  if (changes.length === 0) return '';
  let out = `--- ${oldName}\n+++ ${newName}\n`;
  let h = 0;
  while (h < changes.length) {
    const first = changes[h] ?? 0;
    let last = first;
    while (h + 1 < changes.length && (changes[h + 1] ?? 0) - last <= 2 * context + 1) last = changes[++h] ?? last;
    h++;
    const start = Math.max(0, first - context);
    const end = Math.min(lines.length, last + context + 1);
    let oldBefore = 0;
    let newBefore = 0;
    for (let i = 0; i < start; i++) {
      const l = lines[i];
      if (l?.type !== 'added') oldBefore++;
      if (l?.type !== 'removed') newBefore++;
    }
    let oldCount = 0;
    let newCount = 0;
    let body = '';
    for (let i = start; i < end; i++) {
      const l = lines[i];
      if (l === undefined) continue;
      if (l.type !== 'added') oldCount++;
      if (l.type !== 'removed') newCount++;
      body += `${l.type === 'added' ? '+' : l.type === 'removed' ? '-' : ' '}${l.text}\n`;
    }
    const oldStart = oldCount === 0 ? oldBefore : oldBefore + 1;
    const newStart = newCount === 0 ? newBefore : newBefore + 1;
    out += `@@ -${rangeText(oldStart, oldCount)} +${rangeText(newStart, newCount)} @@\n${body}`;
  }
  return out;
}

export const textDiff = defineTool({
  family: 'text-utilities',
  slug: 'text-diff',
  title: 'Text diff',
  description:
    'Compares two texts line by line with the Myers O(ND) algorithm (a shortest edit script: fewest added plus removed lines). ' +
    'Returns every line as added, removed or unchanged with its 1-based line numbers in the old and new text, the counts, and a ' +
    'unified diff (GNU format, `context` unchanged lines around each change, empty when the texts are equal). ignoreCase and ' +
    'ignoreWhitespace (trim and collapse runs of whitespace) affect only the comparison. Lines split on \\n, \\r\\n or \\r; a final ' +
    `line break does not add an empty line. Each text may have at most ${MAX_DIFF_LINES} lines.`,
  aliases: ['compare text', 'diff checker', 'text compare', 'unified diff', 'find differences', 'diff two files'],
  credits: 1,
  // Myers' diff costs (N+M)·D: only small texts stay on the main thread.
  compute: poolAbove(2_000),
  input: z.object({
    old: textField('The original text'),
    new: textField('The changed text'),
    ignoreCase: z.boolean().default(false).describe('Compare lines ignoring case'),
    ignoreWhitespace: z.boolean().default(false).describe('Compare lines ignoring leading/trailing whitespace and whitespace amount'),
    context: z.number().int().min(0).max(100).default(3).describe('Unchanged lines shown around changes in the unified diff').meta({ unit: 'lines' }),
    oldName: z.string().max(200).default('old').describe('Label of the old text in the unified diff header'),
    newName: z.string().max(200).default('new').describe('Label of the new text in the unified diff header'),
  }),
  output: z.object({
    identical: z.boolean().describe('No line was added or removed (under the comparison options)'),
    added: z.number().int(),
    removed: z.number().int(),
    unchanged: z.number().int(),
    lines: z.array(diffLine),
    unified: z.string(),
  }),
  examples: [
    {
      title: 'One line changed, one added',
      input: { old: 'apple\nbanana\ncherry\n', new: 'apple\nblueberry\ncherry\ndate\n', context: 1 },
      output: {
        identical: false,
        added: 2,
        removed: 1,
        unchanged: 2,
        lines: [
          { type: 'unchanged', oldLine: 1, newLine: 1, text: 'apple' },
          { type: 'removed', oldLine: 2, newLine: null, text: 'banana' },
          { type: 'added', oldLine: null, newLine: 2, text: 'blueberry' },
          { type: 'unchanged', oldLine: 3, newLine: 3, text: 'cherry' },
          { type: 'added', oldLine: null, newLine: 4, text: 'date' },
        ],
        unified: '--- old\n+++ new\n@@ -1,3 +1,4 @@\n apple\n-banana\n+blueberry\n cherry\n+date\n',
      },
    },
  ],
  run(input) {
    const oldLines = splitLines(input.old).lines;
    const newLines = splitLines(input.new).lines;
    for (const [field, lines] of [['old', oldLines], ['new', newLines]] as const) {
      if (lines.length > MAX_DIFF_LINES) {
        throw invalidInput(`Too many lines to diff`, [
          { field, message: `has ${lines.length} lines; at most ${MAX_DIFF_LINES} are allowed` },
        ]);
      }
    }
    const ids = new Map<string, number>();
    const toId = (line: string): number => {
      let key = input.ignoreWhitespace ? line.trim().replace(/\s+/g, ' ') : line;
      if (input.ignoreCase) key = key.toLowerCase();
      let id = ids.get(key);
      if (id === undefined) {
        id = ids.size;
        ids.set(key, id);
      }
      return id;
    };
    const ops: DiffOp[] = diffSequences(Int32Array.from(oldLines, toId), Int32Array.from(newLines, toId));
    const lines: DiffLine[] = ops.map((op) => {
      if (op.type === 'equal') return { type: 'unchanged', oldLine: op.a + 1, newLine: op.b + 1, text: oldLines[op.a] ?? '' };
      if (op.type === 'delete') return { type: 'removed', oldLine: op.a + 1, newLine: null, text: oldLines[op.a] ?? '' };
      return { type: 'added', oldLine: null, newLine: op.b + 1, text: newLines[op.b] ?? '' };
    });
    let added = 0;
    let removed = 0;
    for (const l of lines) {
      if (l.type === 'added') added++;
      else if (l.type === 'removed') removed++;
    }
    return {
      identical: added === 0 && removed === 0,
      added,
      removed,
      unchanged: lines.length - added - removed,
      lines,
      unified: unifiedDiff(lines, input.context, input.oldName, input.newName),
    };
  },
});
