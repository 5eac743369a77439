import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runTool } from '../support/run-tool.ts';
import { isServiceError, type ServiceError } from '../../src/core/errors.ts';
import type { AnyTool } from '../../src/core/define-tool.ts';
import { textCaseConverter } from '../../src/catalog/text-utilities/text-case-converter.ts';
import { wordCounter } from '../../src/catalog/text-utilities/word-counter.ts';
import { slugifyTool } from '../../src/catalog/text-utilities/slugify.ts';
import { dedupeLines } from '../../src/catalog/text-utilities/dedupe-lines.ts';
import { sortLines } from '../../src/catalog/text-utilities/sort-lines.ts';
import { findReplace, REGEX_TIMEOUT_MS } from '../../src/catalog/text-utilities/find-replace.ts';
import { loremIpsum } from '../../src/catalog/text-utilities/lorem-ipsum.ts';
import { textDiff, MAX_DIFF_LINES } from '../../src/catalog/text-utilities/text-diff.ts';
import { diffSequences } from '../../src/catalog/text-utilities/myers-diff.ts';
import { reverseText } from '../../src/catalog/text-utilities/reverse-text.ts';
import { whitespaceCleaner } from '../../src/catalog/text-utilities/whitespace-cleaner.ts';
import { base64Codec } from '../../src/catalog/text-utilities/base64-codec.ts';
import { urlCodec } from '../../src/catalog/text-utilities/url-codec.ts';
import { wordFrequency } from '../../src/catalog/text-utilities/word-frequency.ts';
import { MAX_TEXT_LENGTH } from '../../src/catalog/text-utilities/text-shared.ts';

const TEXT_TOOLS: AnyTool[] = [
  textCaseConverter,
  wordCounter,
  slugifyTool,
  dedupeLines,
  sortLines,
  findReplace,
  loremIpsum,
  textDiff,
  reverseText,
  whitespaceCleaner,
  base64Codec,
  urlCodec,
  wordFrequency,
];

async function run<T = Record<string, unknown>>(tool: AnyTool, input: Record<string, unknown>): Promise<T> {
  return (await runTool(tool, input)).result as T;
}

async function caught(promise: Promise<unknown>): Promise<ServiceError> {
  let error: unknown;
  await assert.rejects(promise, (e) => {
    error = e;
    return true;
  });
  assert.ok(isServiceError(error), `expected a ServiceError, got ${String(error)}`);
  return error;
}

function firstIssue(error: ServiceError): { field: string; message: string; allowed?: unknown[] } | undefined {
  return (error.extra.issues as { field: string; message: string; allowed?: unknown[] }[] | undefined)?.[0];
}

describe('text-utilities family', () => {
  it('has at least 10 tools, each with kebab-case slugs, aliases, 1 credit and examples', () => {
    assert.ok(TEXT_TOOLS.length >= 10);
    assert.equal(new Set(TEXT_TOOLS.map((t) => t.operationId)).size, TEXT_TOOLS.length);
    for (const tool of TEXT_TOOLS) {
      assert.equal(tool.family, 'text-utilities');
      assert.match(tool.slug, /^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      assert.equal(tool.credits, 1);
      assert.ok(tool.aliases.length > 0, tool.slug);
      assert.ok(tool.examples.length > 0, tool.slug);
    }
  });

  it('rejects text longer than the limit in every tool that takes `text`', async () => {
    const huge = 'x'.repeat(MAX_TEXT_LENGTH + 1);
    for (const tool of TEXT_TOOLS) {
      const example = tool.examples[0]?.input as Record<string, unknown>;
      for (const field of ['text', 'old', 'new']) {
        if (!(field in example)) continue;
        const error = await caught(runTool(tool, { ...example, [field]: huge }));
        assert.equal(error.status, 400, tool.slug);
        assert.equal(firstIssue(error)?.field, field, tool.slug);
      }
    }
  });
});

describe('text-case-converter', () => {
  const SENTENCE = "hello WORLD, it's the XMLParser v2 test. second sentence here!";
  const EXPECTED: Record<string, string> = {
    upper: "HELLO WORLD, IT'S THE XMLPARSER V2 TEST. SECOND SENTENCE HERE!",
    lower: "hello world, it's the xmlparser v2 test. second sentence here!",
    title: "Hello World, It's The Xmlparser V2 Test. Second Sentence Here!",
    sentence: "Hello world, it's the xmlparser v2 test. Second sentence here!",
    camel: 'helloWorldItsTheXmlParserV2TestSecondSentenceHere',
    pascal: 'HelloWorldItsTheXmlParserV2TestSecondSentenceHere',
    snake: 'hello_world_its_the_xml_parser_v2_test_second_sentence_here',
    kebab: 'hello-world-its-the-xml-parser-v2-test-second-sentence-here',
    constant: 'HELLO_WORLD_ITS_THE_XML_PARSER_V2_TEST_SECOND_SENTENCE_HERE',
    dot: 'hello.world.its.the.xml.parser.v2.test.second.sentence.here',
    alternating: "hElLo WoRlD, iT's ThE xMlPaRsEr V2 tEsT. sEcOnD sEnTeNcE hErE!",
    inverse: "HELLO world, IT'S THE xmlpARSER V2 TEST. SECOND SENTENCE HERE!",
  };

  for (const [textCase, expected] of Object.entries(EXPECTED)) {
    it(`converts to ${textCase} case`, async () => {
      assert.deepEqual(await run(textCaseConverter, { text: SENTENCE, case: textCase }), { text: expected, case: textCase });
    });
  }

  it('lists exactly the twelve cases, and rejects others with the allowed values', async () => {
    const error = await caught(runTool(textCaseConverter, { text: 'x', case: 'spongebob' }));
    assert.equal(error.status, 400);
    assert.equal(firstIssue(error)?.field, 'case');
    assert.deepEqual(firstIssue(error)?.allowed, Object.keys(EXPECTED));
  });

  it('splits identifiers at camelCase boundaries and handles non-ASCII letters', async () => {
    assert.equal((await run<{ text: string }>(textCaseConverter, { text: 'getHTTPResponseCode', case: 'kebab' })).text, 'get-http-response-code');
    assert.equal((await run<{ text: string }>(textCaseConverter, { text: 'crème_brûlée-recipe', case: 'pascal' })).text, 'CrèmeBrûléeRecipe');
    assert.equal((await run<{ text: string }>(textCaseConverter, { text: '', case: 'camel' })).text, '');
  });
});

describe('word-counter', () => {
  it('counts characters, words, sentences, paragraphs, lines and reading time', async () => {
    assert.deepEqual(await run(wordCounter, { text: 'Hello world! This is a test.\n\nSecond paragraph here' }), {
      characters: 51,
      charactersNoSpaces: 42,
      words: 9,
      sentences: 3,
      paragraphs: 2,
      lines: 3,
      averageWordLength: 4.44,
      readingTimeMinutes: 0.05,
      readingTimeSeconds: 3,
      speakingTimeMinutes: 0.07,
      speakingTimeSeconds: 4,
    });
  });

  it('counts an emoji as one character and ignores punctuation-only tokens as words', async () => {
    const r = await run<{ characters: number; words: number; sentences: number }>(wordCounter, { text: 'Hi 👋 — there' });
    assert.equal(r.characters, 12); // H i ␠ 👋 ␠ — ␠ t h e r e
    assert.equal(r.words, 2);
    assert.equal(r.sentences, 1);
  });

  it('uses the reading speed given', async () => {
    const text = Array.from({ length: 600 }, () => 'word').join(' ');
    const r = await run<{ readingTimeMinutes: number; readingTimeSeconds: number }>(wordCounter, { text, readingWordsPerMinute: 300 });
    assert.equal(r.readingTimeMinutes, 2);
    assert.equal(r.readingTimeSeconds, 120);
  });
});

describe('slugify', () => {
  it('transliterates and separates', async () => {
    assert.deepEqual(await run(slugifyTool, { text: 'Crème Brûlée & Straße: 10 Tips for Beginners!' }), {
      slug: 'creme-brulee-and-strasse-10-tips-for-beginners',
      length: 46,
    });
    assert.equal((await run<{ slug: string }>(slugifyTool, { text: '  --Hello__World--  ' })).slug, 'hello-world');
    assert.equal((await run<{ slug: string }>(slugifyTool, { text: 'Keep Case', lowercase: false, separator: '_' })).slug, 'Keep_Case');
  });

  it('cuts at a whole word within maxLength', async () => {
    assert.equal((await run<{ slug: string }>(slugifyTool, { text: 'one two three four', maxLength: 12 })).slug, 'one-two');
    assert.equal((await run<{ slug: string }>(slugifyTool, { text: 'one two three four', maxLength: 13 })).slug, 'one-two-three');
    assert.equal((await run<{ slug: string }>(slugifyTool, { text: 'abcdefghij', maxLength: 4 })).slug, 'abcd');
  });
});

describe('dedupe-lines', () => {
  it('keeps the first occurrence in order', async () => {
    assert.deepEqual(await run(dedupeLines, { text: 'b\na\nb\nA\na' }), { text: 'b\na\nA', lines: 5, kept: 3, removed: 2 });
  });

  it('optionally ignores case and surrounding whitespace', async () => {
    assert.deepEqual(await run(dedupeLines, { text: 'apple\nBanana\n  apple \nbanana\ncherry\n', caseInsensitive: true, trim: true }), {
      text: 'apple\nBanana\ncherry\n',
      lines: 5,
      kept: 3,
      removed: 2,
    });
    assert.deepEqual(await run(dedupeLines, { text: 'x\r\n\r\nx\r\n\r\ny', removeEmpty: true }), { text: 'x\ny', lines: 5, kept: 2, removed: 3 });
  });
});

describe('sort-lines', () => {
  const sorted = async (text: string, options: Record<string, unknown> = {}): Promise<string> =>
    (await run<{ text: string }>(sortLines, { text, ...options })).text;

  it('sorts by code unit ascending and descending', async () => {
    assert.equal(await sorted('pear\nApple\nfig\napple'), 'Apple\napple\nfig\npear');
    assert.equal(await sorted('pear\nApple\nfig\napple', { order: 'desc' }), 'pear\nfig\napple\nApple');
    assert.equal(await sorted('item10\nitem9\nitem1'), 'item1\nitem10\nitem9');
  });

  it('sorts naturally, case-insensitively and uniquely', async () => {
    assert.equal(await sorted('item10\nitem9\nitem1', { natural: true }), 'item1\nitem9\nitem10');
    assert.equal(await sorted('b\nA\na\nB', { caseInsensitive: true }), 'A\na\nb\nB');
    assert.equal(await sorted('b\nA\na\nB', { caseInsensitive: true, unique: true }), 'A\nb');
    assert.deepEqual(await run(sortLines, { text: 'file10\nFile2\nfile1\nfile2\n', natural: true, caseInsensitive: true, unique: true }), {
      text: 'file1\nFile2\nfile10\n',
      lines: 3,
    });
    assert.equal(await sorted('b\n\n  \na', { removeEmpty: true }), 'a\nb');
  });
});

describe('find-replace', () => {
  it('replaces literal text without interpreting $ patterns', async () => {
    assert.deepEqual(await run(findReplace, { text: 'a.b.c', pattern: '.', replacement: '$&$1' }), { text: 'a$&$1b$&$1c', replacements: 2 });
    assert.deepEqual(await run(findReplace, { text: 'x x x', pattern: 'x', replacement: 'y', all: false }), { text: 'y x x', replacements: 1 });
    assert.deepEqual(await run(findReplace, { text: 'Cats and cats and CATs', pattern: 'cat', replacement: 'dog', ignoreCase: true }), {
      text: 'dogs and dogs and dogs',
      replacements: 3,
    });
  });

  it('replaces with a regex, groups and flags', async () => {
    assert.deepEqual(
      await run(findReplace, { text: 'Doe, Jane\nRoe, Richard', pattern: '^(\\w+), (\\w+)$', replacement: '$2 $1', mode: 'regex', flags: 'gm' }),
      { text: 'Jane Doe\nRichard Roe', replacements: 2 },
    );
    assert.deepEqual(
      await run(findReplace, {
        text: 'on 2024-01-15.',
        pattern: '(?<y>\\d{4})-(?<m>\\d\\d)-(?<d>\\d\\d)',
        replacement: "$<d>/$<m>/$<y> [$&] $$ [$`] [$']",
        mode: 'regex',
      }),
      { text: 'on 15/01/2024 [2024-01-15] $ [on ] [.].', replacements: 1 },
    );
    assert.deepEqual(await run(findReplace, { text: 'aXbxc', pattern: 'x', replacement: '-', mode: 'regex', flags: 'gi' }), {
      text: 'a-b-c',
      replacements: 2,
    });
  });

  it('names `pattern` for invalid regex syntax and `flags` for bad flags', async () => {
    const syntax = await caught(runTool(findReplace, { text: 'abc', pattern: '(unclosed', mode: 'regex' }));
    assert.equal(syntax.status, 400);
    assert.equal(syntax.error, 'validation_error');
    assert.equal(firstIssue(syntax)?.field, 'pattern');
    const flags = await caught(runTool(findReplace, { text: 'abc', pattern: 'a', mode: 'regex', flags: 'gx' }));
    assert.equal(firstIssue(flags)?.field, 'flags');
  });

  it('stops catastrophic backtracking with a 422 instead of hanging', async () => {
    const started = Date.now();
    const error = await caught(runTool(findReplace, { text: `${'a'.repeat(40)}!`, pattern: '(a+)+$', mode: 'regex' }));
    const elapsed = Date.now() - started;
    assert.equal(error.status, 422);
    assert.equal(error.error, 'regex_timeout');
    assert.match(error.message, /took too long/);
    assert.equal(firstIssue(error)?.field, 'pattern');
    // Stopped by the limit: not before it, and long before (a)+$ on 40 a's would end by itself
    // (2^40 steps). The upper bound is a margin for a loaded machine, not a speed check.
    assert.ok(elapsed >= REGEX_TIMEOUT_MS - 50 && elapsed < REGEX_TIMEOUT_MS + 60_000, `took ${elapsed} ms`);
    // The service keeps working afterwards.
    assert.deepEqual(await run(findReplace, { text: 'aaa!', pattern: '(a+)+$', mode: 'regex' }), { text: 'aaa!', replacements: 0 });
  });

  it('refuses a result that would be too long', async () => {
    const error = await caught(runTool(findReplace, { text: 'x'.repeat(1000), pattern: 'x', replacement: 'y'.repeat(10_000) }));
    assert.equal(error.status, 422);
  });
});

describe('lorem-ipsum', () => {
  it('is deterministic for a seed', async () => {
    const a = await run<{ text: string }>(loremIpsum, { unit: 'paragraphs', count: 3, seed: 123 });
    const b = await run<{ text: string }>(loremIpsum, { unit: 'paragraphs', count: 3, seed: 123 });
    const c = await run<{ text: string }>(loremIpsum, { unit: 'paragraphs', count: 3, seed: 124 });
    assert.equal(a.text, b.text);
    assert.notEqual(a.text, c.text);
    assert.ok(a.text.startsWith('Lorem ipsum dolor sit amet'));
    assert.equal(a.text.split('\n\n').length, 3);
  });

  it('returns exactly the requested count, and the counts match the text', async () => {
    const words = await run<{ text: string; words: number; sentences: number }>(loremIpsum, { unit: 'words', count: 50, startWithLorem: false });
    assert.equal(words.words, 50);
    assert.equal(words.text.split(' ').length, 50);
    assert.ok(!words.text.startsWith('Lorem ipsum dolor sit amet'));
    assert.match(words.text, /^[A-Z][a-z ,]+\.$/);
    const sentences = await run<{ text: string; sentences: number; paragraphs: number }>(loremIpsum, { unit: 'sentences', count: 7 });
    assert.equal(sentences.sentences, 7);
    assert.equal(sentences.paragraphs, 1);
    assert.equal(sentences.text.match(/\./g)?.length, 7);
    assert.deepEqual(await run(loremIpsum, { unit: 'words', count: 8, seed: 42, startWithLorem: false }), {
      text: 'Anim fugiat mauris lacus magna, proident laboris est.',
      paragraphs: 1,
      sentences: 1,
      words: 8,
    });
  });

  it('bounds the count per unit', async () => {
    const error = await caught(runTool(loremIpsum, { unit: 'paragraphs', count: 51 }));
    assert.equal(error.status, 400);
    assert.equal(firstIssue(error)?.field, 'count');
    await caught(runTool(loremIpsum, { unit: 'words', count: 5001 }));
  });
});

describe('text-diff', () => {
  it('reports added, removed and unchanged lines with line numbers and a unified diff', async () => {
    assert.deepEqual(await run(textDiff, { old: 'apple\nbanana\ncherry\n', new: 'apple\nblueberry\ncherry\ndate\n', context: 1 }), {
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
    });
  });

  it('splits distant changes into separate hunks', async () => {
    const r = await run<{ unified: string; added: number; removed: number }>(textDiff, {
      old: 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n',
      new: 'a\nB\nc\nd\ne\nf\ng\nh\ni\nJ\nk',
      context: 2,
      oldName: 'a.txt',
      newName: 'b.txt',
    });
    assert.equal(r.unified, '--- a.txt\n+++ b.txt\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n d\n@@ -8,3 +8,4 @@\n h\n i\n-j\n+J\n+k\n');
    assert.equal(r.added, 3);
    assert.equal(r.removed, 2);
  });

  it('handles empty sides and identical texts', async () => {
    assert.equal((await run<{ unified: string }>(textDiff, { old: '', new: 'x\ny' })).unified, '--- old\n+++ new\n@@ -0,0 +1,2 @@\n+x\n+y\n');
    assert.equal((await run<{ unified: string }>(textDiff, { old: 'x', new: '' })).unified, '--- old\n+++ new\n@@ -1 +0,0 @@\n-x\n');
    const same = await run<{ identical: boolean; unified: string; unchanged: number }>(textDiff, { old: 'A  b\n', new: ' a b', ignoreCase: true, ignoreWhitespace: true });
    assert.deepEqual([same.identical, same.unified, same.unchanged], [true, '', 1]);
  });

  it('finds a shortest edit script (checked against a brute-force LCS)', () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let t = 0; t < 500; t++) {
      const alphabet = 1 + random(5);
      const a = Array.from({ length: random(12) }, () => random(alphabet));
      const b = Array.from({ length: random(12) }, () => random(alphabet));
      const dp = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
      for (let i = 1; i <= a.length; i++) {
        for (let j = 1; j <= b.length; j++) {
          const row = dp[i] as number[];
          row[j] = a[i - 1] === b[j - 1] ? (dp[i - 1]?.[j - 1] ?? 0) + 1 : Math.max(dp[i - 1]?.[j] ?? 0, row[j - 1] ?? 0);
        }
      }
      const ops = diffSequences(a, b);
      const equal = ops.filter((op) => op.type === 'equal');
      assert.equal(equal.length, dp[a.length]?.[b.length], JSON.stringify({ a, b }));
      for (const op of equal) assert.equal(a[op.a], b[op.b]);
      assert.deepEqual(ops.flatMap((op) => (op.type === 'insert' ? [] : [op.a])), a.map((_, i) => i));
      assert.deepEqual(ops.flatMap((op) => (op.type === 'delete' ? [] : [op.b])), b.map((_, i) => i));
    }
  });

  it('bounds the input and stays fast at the bound', async () => {
    const tooMany = Array.from({ length: MAX_DIFF_LINES + 1 }, (_, i) => `${i}`).join('\n');
    const error = await caught(runTool(textDiff, { old: tooMany, new: 'x' }));
    assert.equal(error.status, 400);
    assert.equal(firstIssue(error)?.field, 'old');
    const oldText = Array.from({ length: MAX_DIFF_LINES }, (_, i) => `${i % 3}`).join('\n');
    const newText = Array.from({ length: MAX_DIFF_LINES }, (_, i) => `${(i * 7) % 5}`).join('\n');
    const started = Date.now();
    const r = await run<{ lines: unknown[] }>(textDiff, { old: oldText, new: newText });
    assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
    assert.ok(r.lines.length >= MAX_DIFF_LINES);
  });
});

describe('reverse-text', () => {
  it('reverses graphemes, words and lines', async () => {
    assert.deepEqual(await run(reverseText, { text: 'Hello 👋🏽 world' }), { text: 'dlrow 👋🏽 olleH' });
    assert.deepEqual(await run(reverseText, { text: 'noël 🇫🇷' }), { text: '🇫🇷 lëon' });
    assert.deepEqual(await run(reverseText, { text: 'one two  three\nfour five', mode: 'words' }), { text: 'three two one\nfive four' });
    assert.deepEqual(await run(reverseText, { text: '1\n2\n3\n', mode: 'lines' }), { text: '3\n2\n1\n' });
  });
});

describe('remove-extra-whitespace', () => {
  it('collapses spaces, trims lines and collapses blank lines by default', async () => {
    assert.deepEqual(await run(whitespaceCleaner, { text: '  Hello,\t\tworld!  \n\n\n\n  This   is  spaced.  ' }), {
      text: 'Hello, world!\n\nThis is spaced.',
      removedCharacters: 14,
    });
  });

  it('removes blank lines or joins into one line on request', async () => {
    assert.equal((await run<{ text: string }>(whitespaceCleaner, { text: 'a\n\n\nb\n \nc', blankLines: 'remove' })).text, 'a\nb\nc');
    assert.equal((await run<{ text: string }>(whitespaceCleaner, { text: 'a\n\n\nb', blankLines: 'keep' })).text, 'a\n\n\nb');
    assert.deepEqual(await run(whitespaceCleaner, { text: 'one\n  two\n\nthree ', singleLine: true }), { text: 'one two three', removedCharacters: 4 });
  });
});

describe('base64-codec', () => {
  it('encodes and decodes UTF-8 text, standard and URL-safe', async () => {
    assert.deepEqual(await run(base64Codec, { text: 'Hello, wörld!' }), { result: 'SGVsbG8sIHfDtnJsZCE=', bytes: 14 });
    assert.deepEqual(await run(base64Codec, { text: 'SGVsbG8sIHfDtnJsZCE=', mode: 'decode' }), { result: 'Hello, wörld!', bytes: 14 });
    assert.deepEqual(await run(base64Codec, { text: '??>', urlSafe: true }), { result: 'Pz8-', bytes: 3 });
    assert.deepEqual(await run(base64Codec, { text: '??>' }), { result: 'Pz8+', bytes: 3 });
    assert.deepEqual(await run(base64Codec, { text: 'Pz8-', mode: 'decode', urlSafe: true }), { result: '??>', bytes: 3 });
    assert.deepEqual(await run(base64Codec, { text: 'SGVs\nbG8', mode: 'decode' }), { result: 'Hello', bytes: 5 });
  });

  it('rejects invalid Base64 and binary payloads', async () => {
    assert.equal(firstIssue(await caught(runTool(base64Codec, { text: 'ab$c', mode: 'decode' })))?.field, 'text');
    assert.equal(firstIssue(await caught(runTool(base64Codec, { text: '/w==', mode: 'decode' })))?.field, 'text');
  });
});

describe('url-codec', () => {
  it('encodes components, whole URIs and form values', async () => {
    assert.deepEqual(await run(urlCodec, { text: 'café & crème?' }), { result: 'caf%C3%A9%20%26%20cr%C3%A8me%3F' });
    assert.deepEqual(await run(urlCodec, { text: 'https://x.org/a b?q=1&r=é', scope: 'uri' }), { result: 'https://x.org/a%20b?q=1&r=%C3%A9' });
    assert.deepEqual(await run(urlCodec, { text: 'a b+c', formEncoding: true }), { result: 'a+b%2Bc' });
    assert.deepEqual(await run(urlCodec, { text: 'a+b%3Dc%2Bd', mode: 'decode', formEncoding: true }), { result: 'a b=c+d' });
    assert.deepEqual(await run(urlCodec, { text: 'a+b', mode: 'decode' }), { result: 'a+b' });
  });

  it('rejects malformed escapes', async () => {
    const error = await caught(runTool(urlCodec, { text: '100%', mode: 'decode' }));
    assert.equal(error.status, 400);
    assert.equal(firstIssue(error)?.field, 'text');
  });
});

describe('word-frequency', () => {
  it('counts words, most frequent first', async () => {
    assert.deepEqual(await run(wordFrequency, { text: 'The cat sat. The cat ran! A dog sat with the cat.', excludeStopWords: true, limit: 3 }), {
      totalWords: 7,
      uniqueWords: 4,
      words: [
        { word: 'cat', count: 3, percent: 42.86 },
        { word: 'sat', count: 2, percent: 28.57 },
        { word: 'dog', count: 1, percent: 14.29 },
      ],
    });
  });

  it('respects case and keeps contractions and hyphenated words whole', async () => {
    assert.deepEqual(await run(wordFrequency, { text: "Don't stop; don't STOP well-known", caseInsensitive: false }), {
      totalWords: 5,
      uniqueWords: 5,
      words: [
        { word: 'Don\'t', count: 1, percent: 20 },
        { word: 'STOP', count: 1, percent: 20 },
        { word: "don't", count: 1, percent: 20 },
        { word: 'stop', count: 1, percent: 20 },
        { word: 'well-known', count: 1, percent: 20 },
      ],
    });
    assert.deepEqual(await run(wordFrequency, { text: '' }), { totalWords: 0, uniqueWords: 0, words: [] });
  });
});
