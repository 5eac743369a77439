/**
 * The cold command-line baselines, run the way a CLI user runs them: a new process with a fresh
 * profile directory every time (so LibreOffice and Chromium both do their first-start work), and
 * the wall time until the process exits. The OS page cache is not dropped (that needs root and
 * would disturb everything else on the machine), so the binaries are read from memory: if anything
 * this flatters the CLI.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ColdRun {
  ms: number;
  /** the produced PDF (inside `dir`) */
  pdf: string;
  /** the run's temporary directory: the caller removes it (after checking the PDF if it wants) */
  dir: string;
}

/** `soffice --headless --convert-to pdf --outdir <tmp> <file>` with a fresh -env:UserInstallation. */
export async function coldSoffice(input: string, program = 'soffice'): Promise<ColdRun> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cold-soffice-'));
  const outdir = join(dir, 'out');
  const args = [`-env:UserInstallation=file://${join(dir, 'profile')}`, '--headless', '--convert-to', 'pdf', '--outdir', outdir, input];
  const t0 = performance.now();
  try {
    await run(program, args, { timeout: 180_000 });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const ms = performance.now() - t0;
  const pdf = join(outdir, `${basename(input).replace(/\.[^.]+$/, '')}.pdf`);
  if (!existsSync(pdf) || statSync(pdf).size === 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`soffice produced no PDF for ${input}`);
  }
  return { ms, pdf, dir };
}

export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--no-pdf-header-footer'];

/** `chromium --headless … --user-data-dir=<fresh tmp> --print-to-pdf=<out> file://<html>`. */
export async function coldChromium(htmlPath: string, program = 'chromium'): Promise<ColdRun> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cold-chromium-'));
  const pdf = join(dir, 'out.pdf');
  const args = [...CHROMIUM_FLAGS, `--user-data-dir=${join(dir, 'profile')}`, `--print-to-pdf=${pdf}`, `file://${htmlPath}`];
  const t0 = performance.now();
  try {
    await run(program, args, { timeout: 180_000 });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const ms = performance.now() - t0;
  if (!existsSync(pdf) || statSync(pdf).size === 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`chromium produced no PDF for ${htmlPath}`);
  }
  return { ms, pdf, dir };
}

export async function programVersion(program: string, args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await run(program, [...args], { timeout: 60_000 });
    return stdout.trim().split('\n')[0] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
