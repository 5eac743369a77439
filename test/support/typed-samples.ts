// A small valid file of every kind a file tool accepts, for suites that call every file route
// (the security suite): documents and images come from documents.ts; archives, audio and ebooks
// are made with the families' own fixture builders (7-Zip, ffmpeg and calibre for the kinds that
// need their program). Each kind is made once per process.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build7z, buildTar, buildTarGz, buildZip } from '../archive/support/archive-fixtures.ts';
import { tone } from '../audio/support/audio-fixtures.ts';
import { epub, fb2, madeByCalibre } from '../ebook/support/ebook-fixtures.ts';
import { typedSample } from './documents.ts';

const BOOK = { title: 'Sample', paragraphs: ['A sample book.'] };
const AUDIO = ['mp3', 'wav', 'ogg', 'opus', 'flac', 'm4a'] as const;

async function audioSample(format: (typeof AUDIO)[number]): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'typed-sample-'));
  try {
    return await readFile(await tone(join(dir, `sample.${format}`), format, { seconds: 1, channels: 1 }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const BUILDERS: Record<string, () => Buffer | Promise<Buffer>> = {
  zip: () => buildZip([{ name: 'sample.txt', content: 'sample' }]),
  tar: () => buildTar([{ name: 'sample.txt', content: 'sample' }]),
  'tar.gz': () => buildTarGz([{ name: 'sample.txt', content: 'sample' }]),
  '7z': () => build7z({ 'sample.txt': 'sample' }),
  epub: () => epub(BOOK),
  fb2: () => Buffer.from(fb2(BOOK)),
  mobi: () => madeByCalibre(epub(BOOK), 'mobi'),
  azw3: () => madeByCalibre(epub(BOOK), 'azw3'),
  json: () => Buffer.from('{"sample": [1, 2]}\n'),
  xml: () => Buffer.from('<?xml version="1.0"?><sample><a>1</a></sample>\n'),
  yaml: () => Buffer.from('sample:\n  - 1\n  - 2\n'),
  ...Object.fromEntries(AUDIO.map((format) => [format, () => audioSample(format)])),
};

const made = new Map<string, Promise<{ name: string; content: Buffer }>>();

/** A valid sample of `kind`, named with its extension. */
export function typedSampleOf(kind: string): Promise<{ name: string; content: Buffer }> {
  let sample = made.get(kind);
  if (!sample) {
    const build = BUILDERS[kind];
    sample = build ? Promise.resolve(build()).then((content) => ({ name: `sample.${kind}`, content })) : Promise.resolve(typedSample(kind));
    made.set(kind, sample);
  }
  return sample;
}
