// The up-front safety checks: decompression bombs, DTDs (XXE), password protection, truncation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ServiceError } from '../../src/core/errors.ts';
import { assertSafeDocument, type SafetyLimits } from '../../src/files/document-safety.ts';
import { detectFileKind, type FileKind } from '../../src/files/file-kind.ts';
import { listZipEntries } from '../../src/files/zip-inspect.ts';
import * as fx from '../support/fixtures.ts';

let dir = '';
let counter = 0;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'document-safety-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(data: Buffer | string): Promise<string> {
  const path = join(dir, `upload-${++counter}`);
  await writeFile(path, data);
  return path;
}

/** Detects the kind like the pipeline does, then runs the safety check; returns the refusal or undefined. */
async function check(data: Buffer | string, limits?: Partial<SafetyLimits>, kind?: FileKind): Promise<ServiceError | undefined> {
  const path = await file(data);
  const detected = kind ?? (await detectFileKind(path)).kind;
  try {
    await assertSafeDocument(path, detected, limits);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${String(error)}`);
    assert.equal(error.status, 422);
    return error;
  }
}

async function refused(data: Buffer | string, code: string, detail?: RegExp, limits?: Partial<SafetyLimits>): Promise<ServiceError> {
  const error = await check(data, limits);
  assert.ok(error, `expected ${code}, but the document passed`);
  assert.equal(error.error, code, `${error.error}: ${error.detail}`);
  if (detail) assert.match(error.detail, detail);
  return error;
}

const entry = (name: string, data: string | Buffer, extra: Partial<fx.FixtureZipEntry> = {}): fx.FixtureZipEntry => ({ name, data, ...extra });
const docxWith = (...extra: fx.FixtureZipEntry[]): Buffer =>
  fx.zip([
    entry('[Content_Types].xml', '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
    entry('word/document.xml', '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"/>'),
    ...extra,
  ]);

describe('assertSafeDocument: documents that pass', () => {
  it('passes normal docx, xlsx, pptx and odt files', async () => {
    assert.equal(await check(fx.minimalDocx(['Hello', 'World'])), undefined);
    assert.equal(await check(fx.minimalXlsx([['a', 1], ['b', 2.5]])), undefined);
    assert.equal(await check(fx.minimalPptx(['One', 'Two'])), undefined);
    assert.equal(await check(fx.minimalOdt(['Hello'])), undefined);
  });

  it('leaves external relationships to the engine sandbox (they are not a parse-time danger)', async () => {
    assert.equal(await check(fx.minimalDocx(['x'], { linkedImageUrl: 'http://127.0.0.1:9/x.png', hyperlinkUrl: 'file:///etc/passwd' })), undefined);
  });

  it('passes non-ZIP kinds that are not encrypted', async () => {
    assert.equal(await check(fx.minimalPdf()), undefined);
    assert.equal(await check(fx.rtf('Hello')), undefined);
    assert.equal(await check('plain text'), undefined);
    assert.equal(await check('<!DOCTYPE html><html></html>'), undefined);
    assert.equal(await check(fx.png()), undefined);
    assert.equal(await check(fx.legacyDoc()), undefined);
  });

  it('allows a W3C DOCTYPE in EPUB XHTML, but no entities', async () => {
    const epub = (xhtml: string) =>
      fx.zip([
        entry('mimetype', 'application/epub+zip', { method: 0 }),
        entry('META-INF/container.xml', '<container/>'),
        entry('OEBPS/ch1.xhtml', xhtml),
      ]);
    assert.equal(await check(epub('<?xml version="1.0"?><!DOCTYPE html><html/>')), undefined);
    assert.equal(
      await check(epub('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd"><html/>')),
      undefined,
    );
    await refused(epub('<!DOCTYPE html [<!ENTITY x SYSTEM "file:///etc/passwd">]><html>&x;</html>'), 'unsafe_document', /OEBPS\/ch1\.xhtml/);
    await refused(epub('<!DOCTYPE html SYSTEM "http://169.254.169.254/latest/meta-data"><html/>'), 'unsafe_document', /DTD/);
  });
});

describe('assertSafeDocument: decompression bombs', () => {
  it('rejects a docx whose document.xml declares 1 GB', async () => {
    const error = await refused(fx.docxBomb(), 'document_bomb', /word\/document\.xml/);
    assert.match(error.message, /expands/);
  });

  it('rejects a bomb that lies about its size when the inflated part passes 64 MB', async () => {
    await refused(fx.docxBomb({ lie: true }), 'document_bomb', /^word\/document\.xml inflates past 64 MB$/);
  });

  it('rejects a declared total past the limit', async () => {
    const parts = Array.from({ length: 4 }, (_, i) => entry(`word/media/image${i}.bin`, Buffer.alloc(40_000, i + 1)));
    await refused(docxWith(...parts), 'document_bomb', /declare .* in total; the limit is 100 KB/, { maxUncompressedBytes: 100 * 1024 });
    assert.equal(await check(docxWith(...parts), { maxUncompressedBytes: 1024 * 1024 }), undefined);
  });

  it('counts what actually inflates, not what is declared', async () => {
    const parts = [
      entry('word/a.xml', `<a>${'a'.repeat(40_000)}</a>`),
      entry('word/b.xml', `<b>${'b'.repeat(40_000)}</b>`),
      entry('word/c.xml', `<c>${'c'.repeat(40_000)}</c>`, { declaredSize: 1000 }),
    ];
    await refused(docxWith(...parts), 'document_bomb', /^word\/c\.xml takes the inflated total past 100 KB/, { maxUncompressedBytes: 100 * 1024 });
  });

  it('rejects a part whose compression ratio is implausible', async () => {
    await refused(docxWith(entry('word/media/blank.bin', Buffer.alloc(2 * 1024 * 1024))), 'document_bomb', /word\/media\/blank\.bin declares 2 MB .*ratio \d+:1/);
    // Small parts may compress as well as they like.
    assert.equal(await check(docxWith(entry('word/settings.xml', `<s>${' '.repeat(100_000)}</s>`))), undefined);
  });

  it('stops a part whose actual inflation ratio passes the limit, whatever it declares', async () => {
    const lying = docxWith(entry('word/styles.xml', `<s>${' '.repeat(50_000)}</s>`, { declaredSize: 100 }));
    await refused(lying, 'document_bomb', /^word\/styles\.xml inflates to more than 1000 bytes from \d+ bytes \(the ratio limit is 10:1\)$/, {
      maxRatio: 10,
      ratioFloorBytes: 1000,
    });
  });

  it('rejects a part larger than the per-part cap', async () => {
    await refused(docxWith(entry('word/big.xml', `<x>${'x'.repeat(5000)}</x>`)), 'document_bomb', /word\/big\.xml declares .* at most 4 KB/, { maxPartBytes: 4096 });
  });

  it('rejects entries that share their data (the overlapping-file bomb)', async () => {
    await refused(fx.overlappingDocx(10), 'document_bomb', /overlap/);
  });

  it('rejects archives with too many entries', async () => {
    const many = Array.from({ length: 20 }, (_, i) => entry(`word/media/${i}.bin`, 'x'));
    await refused(docxWith(...many), 'document_bomb', /entries/, { maxEntries: 10 });
  });
});

describe('assertSafeDocument: DTDs and entities (XXE)', () => {
  it('rejects the classic XXE docx', async () => {
    await refused(fx.xxeDocx(), 'unsafe_document', /word\/document\.xml declares an entity/);
    await refused(fx.xxeDocx('http://127.0.0.1:9/x'), 'unsafe_document');
  });

  it('rejects a bare DOCTYPE, in any XML part or relationships part', async () => {
    await refused(fx.minimalDocx(['x'], { extraDocumentXmlPrefix: '<!DOCTYPE w:document>' }), 'unsafe_document', /word\/document\.xml declares a DTD/);
    await refused(docxWith(entry('word/_rels/document.xml.rels', '<!DOCTYPE r SYSTEM "http://127.0.0.1:9/evil.dtd"><Relationships/>')), 'unsafe_document', /document\.xml\.rels/);
    await refused(docxWith(entry('customXml/item1.xml', '<?xml version="1.0"?>\n<!ENTITY % p SYSTEM "x">')), 'unsafe_document', /customXml\/item1\.xml/);
  });

  it('rejects DTDs in ODF parts', async () => {
    const odt = fx.zip([
      entry('mimetype', 'application/vnd.oasis.opendocument.text', { method: 0 }),
      entry('content.xml', '<!DOCTYPE office:document-content [<!ENTITY e SYSTEM "file:///etc/passwd">]><office:document-content>&e;</office:document-content>'),
    ]);
    await refused(odt, 'unsafe_document', /content\.xml/);
  });

  it('sees a DOCTYPE hidden in UTF-16, and refuses encodings it cannot read', async () => {
    const utf16 = Buffer.from('\uFEFF<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE w:document [<!ENTITY x SYSTEM "file:///etc/passwd">]><w:document/>', 'utf16le');
    await refused(docxWith(entry('word/styles.xml', utf16)), 'unsafe_document', /word\/styles\.xml declares an entity/);
    const noBom = Buffer.from('<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE x><x/>', 'utf16le');
    await refused(docxWith(entry('word/styles.xml', noBom)), 'unsafe_document', /DTD/);
    const be = Buffer.from('\uFEFF<!DOCTYPE x><x/>', 'utf16le').swap16();
    await refused(docxWith(entry('word/styles.xml', be)), 'unsafe_document', /DTD/);
    await refused(docxWith(entry('word/styles.xml', '<?xml version="1.0" encoding="UTF-7"?>+ADw-!DOCTYPE x+AD4-')), 'unsafe_document', /UTF-7/);
    const utf32 = Buffer.from([0x3c, 0, 0, 0, 0x78, 0, 0, 0]);
    await refused(docxWith(entry('word/styles.xml', utf32)), 'unsafe_document', /UTF-32/);
    // UTF-16 without any DTD is fine.
    assert.equal(await check(docxWith(entry('word/styles.xml', Buffer.from('\uFEFF<?xml version="1.0" encoding="UTF-16"?><w:styles/>', 'utf16le')))), undefined);
  });
});

describe('assertSafeDocument: parts that are XML by content', () => {
  it('checks a main part whatever its name, and VML drawings', async () => {
    const hidden = docxWith(entry('word/main.dat', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>'));
    await refused(hidden, 'unsafe_document', /word\/main\.dat declares an entity/);
    const utf16 = docxWith(entry('word/main.dat', Buffer.from('\uFEFF  <!DOCTYPE x SYSTEM "http://127.0.0.1:9/x.dtd"><x/>', 'utf16le')));
    await refused(utf16, 'unsafe_document', /word\/main\.dat declares a DTD/);
    await refused(docxWith(entry('xl/drawings/vmlDrawing1.vml', '<!DOCTYPE xml><xml/>')), 'unsafe_document', /vmlDrawing1\.vml/);
  });

  it('leaves binary parts alone and allows an HTML doctype in an HTML part', async () => {
    assert.equal(await check(docxWith(entry('word/media/image1.png', fx.png()), entry('word/embeddings/x.bin', Buffer.from([0, 1, 2, 0x3c])))), undefined);
    assert.equal(await check(docxWith(entry('word/afchunk.htm', '<!DOCTYPE html><html><body><p>chunk</p></body></html>'))), undefined);
    assert.equal(await check(docxWith(entry('word/afchunk.dat', `<!DOCTYPE html>${' '.repeat(2000)}<html></html>`))), undefined);
  });
});

describe('assertSafeDocument: password protection', () => {
  it('rejects a password-protected docx/xlsx/pptx (OLE2 EncryptedPackage) and says to remove the password', async () => {
    for (const version of [3, 4] as const) {
      const error = await refused(fx.encryptedOoxmlLike({ version }), 'encrypted_document', /EncryptedPackage/);
      assert.match(error.message, /remove the password/);
    }
  });

  it('rejects the encrypted OOXML file even when the pipeline was told it is a docx', async () => {
    const error = await check(fx.encryptedOoxmlLike(), undefined, 'ole2');
    assert.equal(error?.error, 'encrypted_document');
  });

  it('rejects an encrypted legacy Word file', async () => {
    await refused(fx.legacyDoc({ encrypted: true }), 'encrypted_document', /Word/);
  });

  it('rejects an encrypted PDF', async () => {
    await refused(fx.encryptedPdf(), 'encrypted_document', /\/Encrypt/);
  });

  it('rejects encrypted ZIP entries and encrypted ODF packages', async () => {
    await refused(docxWith(entry('word/styles.xml', 'xx', { encryptedFlag: true })), 'encrypted_document', /word\/styles\.xml/);
    await refused(fx.minimalOdt(['secret'], { encrypted: true }), 'encrypted_document', /manifest/);
  });
});

describe('assertSafeDocument: truncated and damaged archives', () => {
  it('rejects a truncated docx as corrupt', async () => {
    const docx = fx.minimalDocx(['Hello', 'World']);
    const error = await refused(fx.truncated(docx, Math.floor(docx.length / 2)), 'corrupt_document');
    assert.match(error.message, /Word document is damaged or incomplete/);
  });

  it('rejects a docx cut at any point as corrupt', async () => {
    const docx = fx.minimalDocx(['Hello', 'World']);
    for (let keep = 4; keep < docx.length; keep += 37) {
      const error = await check(fx.truncated(docx, keep), undefined, 'docx');
      assert.equal(error?.error, 'corrupt_document', `cut at ${keep}: ${error?.error} ${error?.detail}`);
    }
  });

  it('rejects a docx whose main part does not inflate', async () => {
    const docx = fx.minimalDocx(['Some text that compresses. '.repeat(50)]);
    const path = await file(docx);
    const main = (await listZipEntries(path)).entries.find((e) => e.name === 'word/document.xml')!;
    const dataStart = main.localHeaderOffset + 30 + main.name.length;
    docx.fill(0xff, dataStart, dataStart + main.compressedSize);
    await refused(docx, 'corrupt_document', /word\/document\.xml/);
  });

  it('rejects a part whose CRC does not match', async () => {
    const docx = docxWith(entry('word/styles.xml', '<w:styles/>', { method: 0 }));
    const at = docx.indexOf('<w:styles/>');
    docx[at + 3] = 0x58;
    await refused(docx, 'corrupt_document', /word\/styles\.xml.*CRC/);
  });

  it('answers damaged documents with a 422 ServiceError, never a crash', async () => {
    const docx = fx.minimalDocx(['Hello', 'World']);
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 150; i++) {
      const damaged = Buffer.from(docx);
      for (let j = 0; j < 3; j++) damaged[Math.floor(random() * damaged.length)] = Math.floor(random() * 256);
      await check(damaged, undefined, 'docx'); // asserts any refusal is a 422 ServiceError
    }
  });

  it('rejects an OLE2 file whose directory cannot be read', async () => {
    const damaged = fx.legacyDoc();
    damaged.writeUInt32LE(0x7fffffff, 0x30);
    await refused(damaged, 'corrupt_document', /OLE2 directory/);
  });
});

// Real files written by LibreOffice (legacy formats, ODF, EPUB, password-protected files), when
// it is installed with its Python bridge.
const LO_SCRIPT = String.raw`
import json, os, signal, subprocess, sys, time
import uno
from com.sun.star.beans import PropertyValue

def pv(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p

work, jobs = sys.argv[1], json.load(open(sys.argv[2]))
pipe = 'fixtures%d' % os.getpid()
proc = subprocess.Popen(['soffice', '-env:UserInstallation=file://' + work + '/profile', '--headless', '--invisible', '--norestore',
                         '--nologo', '--accept=pipe,name=%s;urp;' % pipe], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def stop(*_):
    proc.kill()
    sys.exit(1)

signal.signal(signal.SIGTERM, stop)
try:
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext('com.sun.star.bridge.UnoUrlResolver', local)
    ctx = None
    for _ in range(240):
        try:
            ctx = resolver.resolve('uno:pipe,name=%s;urp;StarOffice.ComponentContext' % pipe)
            break
        except Exception:
            time.sleep(0.25)
    desktop = ctx.ServiceManager.createInstanceWithContext('com.sun.star.frame.Desktop', ctx)
    for job in jobs:
        doc = desktop.loadComponentFromURL('file://' + job['input'], '_blank', 0, (pv('Hidden', True),))
        props = [pv('FilterName', job['filter'])]
        if job.get('password') and job['filter'].endswith('pdf_Export'):
            data = uno.Any('[]com.sun.star.beans.PropertyValue', (pv('EncryptFile', True), pv('DocumentOpenPassword', job['password'])))
            uno.invoke(doc, 'storeToURL', ('file://' + job['output'], tuple(props + [pv('FilterData', data)])))
        else:
            if job.get('password'):
                props.append(pv('Password', job['password']))
            doc.storeToURL('file://' + job['output'], tuple(props))
        doc.close(True)
    try:
        desktop.terminate()
    except Exception:
        pass
finally:
    try:
        proc.wait(timeout=20)
    except Exception:
        proc.kill()
`;

const PYTHON = '/usr/bin/python3';
const haveLibreOffice =
  (process.env.PATH ?? '').split(':').some((d) => d !== '' && existsSync(join(d, 'soffice'))) &&
  existsSync(PYTHON) &&
  spawnSync(PYTHON, ['-c', 'import uno'], { stdio: 'ignore' }).status === 0;

// scripts/setup.sh installs LibreOffice and python3-uno, so their absence is a failure, not a skip.
describe('real files written by LibreOffice', () => {
  let out = '';
  const made = new Map<string, string>();
  before(async () => {
    assert.ok(haveLibreOffice, 'LibreOffice (soffice) with python3-uno must be installed (scripts/setup.sh installs them)');
    out = join(dir, 'libreoffice');
    await mkdir(out, { recursive: true });
    const sources = { docx: fx.minimalDocx(['Hello from a fixture']), xlsx: fx.minimalXlsx([['a', 1]]), pptx: fx.minimalPptx(['Slide']) };
    for (const [ext, data] of Object.entries(sources)) await writeFile(join(out, `source.${ext}`), data);
    const jobs = [
      ['docx', 'doc', 'MS Word 97'],
      ['docx', 'odt', 'writer8'],
      ['docx', 'epub', 'EPUB'],
      ['docx', 'rtf', 'Rich Text Format'],
      ['docx', 'pdf', 'writer_pdf_Export'],
      ['xlsx', 'xls', 'MS Excel 97'],
      ['xlsx', 'ods', 'calc8'],
      ['pptx', 'ppt', 'MS PowerPoint 97'],
      ['pptx', 'odp', 'impress8'],
      ['docx', 'locked.doc', 'MS Word 97', 'secret'],
      ['xlsx', 'locked.xls', 'MS Excel 97', 'secret'],
      ['docx', 'locked.odt', 'writer8', 'secret'],
      ['docx', 'locked.pdf', 'writer_pdf_Export', 'secret'],
    ].map(([from, to, filter, password]) => {
      made.set(to!, join(out, `result.${to}`));
      return { input: join(out, `source.${from}`), output: join(out, `result.${to}`), filter, ...(password ? { password } : {}) };
    });
    await writeFile(join(out, 'jobs.json'), JSON.stringify(jobs));
    await writeFile(join(out, 'convert.py'), LO_SCRIPT);
    await promisify(execFile)(PYTHON, [join(out, 'convert.py'), out, join(out, 'jobs.json')], { timeout: 90_000 });
  });

  const expectations: [string, Partial<Awaited<ReturnType<typeof detectFileKind>>>, string | undefined][] = [
    ['doc', { kind: 'ole2', oleType: 'doc', mimeType: 'application/msword' }, undefined],
    ['xls', { kind: 'ole2', oleType: 'xls', mimeType: 'application/vnd.ms-excel' }, undefined],
    ['ppt', { kind: 'ole2', oleType: 'ppt', mimeType: 'application/vnd.ms-powerpoint' }, undefined],
    ['odt', { kind: 'odt' }, undefined],
    ['ods', { kind: 'ods' }, undefined],
    ['odp', { kind: 'odp' }, undefined],
    ['epub', { kind: 'epub' }, undefined],
    ['rtf', { kind: 'rtf' }, undefined],
    ['pdf', { kind: 'pdf' }, undefined],
    ['locked.doc', { kind: 'ole2', oleType: 'doc', encrypted: true }, 'encrypted_document'],
    ['locked.xls', { kind: 'ole2', oleType: 'xls', encrypted: true }, 'encrypted_document'],
    ['locked.odt', { kind: 'odt', encrypted: true }, 'encrypted_document'],
    ['locked.pdf', { kind: 'pdf', encrypted: true }, 'encrypted_document'],
  ];
  for (const [name, expected, refusal] of expectations) {
    it(`${name}: ${expected.kind}${expected.encrypted ? ' (encrypted)' : ''} → ${refusal ?? 'passes'}`, async () => {
      const path = made.get(name)!;
      const detected = await detectFileKind(path);
      for (const [key, value] of Object.entries(expected)) assert.equal(detected[key as keyof typeof detected], value, `${name}.${key}`);
      const error = await check(await readFile(path), undefined, detected.kind);
      assert.equal(error?.error, refusal, error?.detail);
    });
  }

  it('a legacy PowerPoint file whose CurrentUserAtom says "encrypted" is encrypted', async () => {
    const ppt = await readFile(made.get('ppt')!);
    const token = ppt.indexOf(Buffer.from([0x5f, 0xc0, 0x91, 0xe3]));
    assert.ok(token > 0);
    ppt.writeUInt32LE(0xf3d1c4df, token);
    const detected = await detectFileKind(await file(ppt));
    assert.equal(detected.encrypted, true);
    await refused(ppt, 'encrypted_document', /PowerPoint/);
  });
});
