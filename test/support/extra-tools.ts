import { EventEmitter, once } from 'node:events';
import { z } from 'zod';
import { Catalog, loadCatalog } from '../../src/core/catalog.ts';
import { defineTool } from '../../src/core/define-tool.ts';
import { ServiceError, unprocessable } from '../../src/core/errors.ts';

// Tools that exist only in tests, to exercise the invoke path where no real tool does yet: a
// failure of the service, input the tool cannot process, and a family the free plan excludes.
// They are real catalog tools going through the real invoke path; nothing of ours is mocked.
const noInput = z.object({ mode: z.enum(['crash', 'unavailable', 'unreadable', 'slow']).default('crash') });

export const faultyTool = defineTool({
  family: 'testing',
  slug: 'faulty',
  title: 'Faulty tool',
  description: 'Fails the way engines and tools fail, to test refunds and error envelopes.',
  credits: 3,
  input: noInput,
  output: z.object({ never: z.boolean() }),
  examples: [],
  limits: { timeoutMs: 300 },
  async run({ mode }, ctx) {
    if (mode === 'unavailable') throw new ServiceError(503, 'engine_unavailable', 'The engine is not installed');
    if (mode === 'unreadable') throw unprocessable('The file cannot be read');
    if (mode === 'slow') {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      ctx.log.info('finished late');
      return { never: true };
    }
    throw new Error('boom: an internal failure with a secret path /srv/internal');
  },
});

export const aiTool = defineTool({
  family: 'ai-models',
  slug: 'echo-insight',
  title: 'Echo insight',
  description: 'Stands in for a paid-plan-only AI tool: echoes its prompt.',
  credits: 5,
  input: z.object({ prompt: z.string().max(100) }),
  output: z.object({ echo: z.string() }),
  examples: [{ title: 'echo', input: { prompt: 'hi' }, output: { echo: 'hi' } }],
  run: ({ prompt }) => ({ echo: prompt }),
});

export async function catalogWithTestTools(): Promise<Catalog> {
  const real = await loadCatalog();
  return new Catalog([...real.tools, faultyTool, aiTool]);
}

/** A tool that holds until the test releases it: a run in flight for as long as a test needs. */
export function gatedTool() {
  const gate = new EventEmitter();
  let started = 0;
  const tool = defineTool({
    family: 'testing',
    slug: 'gated',
    title: 'Gated tool',
    description: 'Waits until the test opens its gate, then answers its input.',
    credits: 1,
    input: z.object({ n: z.number().int() }),
    output: z.object({ n: z.number().int() }),
    examples: [],
    async run({ n }) {
      started++;
      gate.emit('started', started);
      await once(gate, 'open');
      return { n };
    },
  });
  return {
    tool,
    /** Releases every run waiting at the gate now. */
    open: () => gate.emit('open'),
    /** Resolves once `count` runs in all have started. */
    async started(count: number) {
      while (started < count) await once(gate, 'started');
    },
  };
}
