// Every analyzer, discovered from src/analysis/analyzers/ the way tools are discovered from the
// catalog: any exported object that is an Analyzer. The analysis worker finds analyzers here by
// id, so adding an analyzer is adding its file.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Analyzer } from './scoring.ts';

const ANALYZERS_DIR = fileURLToPath(new URL('./analyzers/', import.meta.url));

export function isAnalyzer(value: unknown): value is Analyzer {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<Analyzer>;
  return typeof v.id === 'string' && Array.isArray(v.rules) && typeof v.analyzeDocument === 'function' && typeof v.analyze === 'function';
}

export async function loadAnalyzers(dir: string = ANALYZERS_DIR): Promise<Map<string, Analyzer>> {
  const byId = new Map<string, Analyzer>();
  const files = (await readdir(dir)).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).sort();
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as Record<string, unknown>;
    for (const value of Object.values(mod)) {
      if (!isAnalyzer(value)) continue;
      const known = byId.get(value.id);
      if (known !== undefined && known !== value) throw new Error(`two analyzers have the id ${value.id}`);
      byId.set(value.id, value);
    }
  }
  return byId;
}
