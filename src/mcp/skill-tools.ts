// list_skills and load_skill (free): the playbooks an agent can run, read from the registry that
// checked them against the catalog at start (src/runs/playbooks/). Running them is part 2.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { configOnce } from './tool-config-cache.ts';
import { result } from './tool-result.ts';
import { isServiceError } from '../core/errors.ts';
import type { PlaybookRegistry } from '../runs/playbooks/playbook-registry.ts';

export function registerSkillTools(server: McpServer, registry: PlaybookRegistry): void {
  server.registerTool(
    'list_skills',
    configOnce(registry, 'list_skills', () => ({
      title: 'List playbooks',
      description:
        'The playbooks (skills): named, outcome-based sequences of catalog operations with a gate that says when the outcome is ' +
        'good enough (e.g. seo-audit, security-baseline, ship-check). Optionally ranked for a few words or filtered by tag. Each ' +
        'entry has its id, a one-line summary, its estimated credits and its tags. Free. Next: load_skill for one of them.',
      inputSchema: {
        query: z.string().max(200).optional().describe('Words describing the outcome you want, e.g. "launch checks"'),
        tag: z.string().max(50).optional().describe('Only playbooks with this tag'),
      },
      outputSchema: {
        skills: z.array(z.object({ id: z.string(), title: z.string(), summary: z.string(), estimatedCredits: z.number(), tags: z.array(z.string()), gatePolicy: z.string() })),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    })),
    (args) => result({ skills: registry.list(args) }),
  );

  server.registerTool(
    'load_skill',
    configOnce(registry, 'load_skill', () => ({
      title: 'Load a playbook',
      description:
        "One playbook whole: its steps (each a catalog operation with the input it is given), the JSON Schema of the playbook's " +
        'input, its gate, the guidance for the fix-and-verify loop, and the estimated credits from the catalog prices. Free.',
      inputSchema: { skillId: z.string().min(1).max(100).describe('The playbook id, as list_skills shows it') },
      outputSchema: {
        playbook: z.record(z.string(), z.unknown()),
        inputSchema: z.record(z.string(), z.unknown()),
        estimatedCredits: z.object({ total: z.number(), note: z.string() }),
        steps: z.array(z.record(z.string(), z.unknown())),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    })),
    ({ skillId }) => {
      try {
        return result(registry.load(skillId) as unknown as Record<string, unknown>);
      } catch (error) {
        if (!isServiceError(error)) throw error;
        return result({ status: 'error', error: error.error, message: error.message, ...error.extra }, true);
      }
    },
  );
}
