// A tool that exists only in tests, computing on the compute pool: it holds its worker until the
// test opens its gate (creates the gate file), so a test can act while a job is known to be
// running, instead of guessing with a sleep. It is discovered from this module like a catalog
// tool (loadToolModule), so a pool worker can import it.
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { Catalog, loadCatalog, loadToolModule } from '../../src/core/catalog.ts';
import { defineTool } from '../../src/core/define-tool.ts';

export const gatedCompute = defineTool({
  family: 'testing',
  slug: 'gated-compute',
  title: 'Gated compute',
  description: 'Holds a compute worker until its gate file exists, then answers its label.',
  credits: 2,
  compute: 'pool',
  input: z.object({ gate: z.string().min(1), label: z.string().default('') }),
  output: z.object({ label: z.string() }),
  examples: [],
  limits: { timeoutMs: 120_000 },
  run({ gate, label }) {
    // Synchronous, like a parse: the worker is busy until the gate opens (or the pool ends it).
    const nap = new Int32Array(new SharedArrayBuffer(4));
    while (!existsSync(gate)) Atomics.wait(nap, 0, 0, 5);
    return { label };
  },
});

/** The real catalog and the gated tool, loaded from this module so that the pool knows where it lives. */
export async function catalogWithComputeTools(): Promise<Catalog> {
  const [real, extra] = await Promise.all([loadCatalog(), loadToolModule(new URL(import.meta.url).href)]);
  return new Catalog([...real.tools, ...extra]);
}

