// The feature-memory meta-tools (free): recall_context, capture_feature, list_feature_memory,
// compare_feature_memory, delete_feature, and the community patterns (publish, unpublish, list).
// Features are private to their account: another account's featureId or patternId answers the
// same not-found error as one that never existed. Only a pattern's redacted copy of requirements
// and acceptance is visible to every account, without its publisher.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { configOnce } from './tool-config-cache.ts';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorResult, result } from './tool-result.ts';
import type { Caller } from '../accounts/account-store.ts';
import { IMPROVED_RULE, compareFeatures } from '../runs/feature-memory/feature-comparison.ts';
import type { FeatureMemory } from '../runs/feature-memory/feature-memory.ts';
import { snapshotOf, type BaselineReading } from '../runs/feature-memory/feature-snapshot.ts';
import { extractBaseline } from '../runs/loop/baseline.ts';
import { evaluateGate } from '../runs/loop/gate.ts';
import { MAX_FEATURES_PER_ACCOUNT, MAX_ITEMS, MAX_ITEM_CHARS, MAX_TITLE_CHARS, type FeatureView } from '../runs/feature-memory/feature-store.ts';
import { MAX_QUERY_CHARS, type Pattern } from '../runs/feature-memory/pattern-store.ts';
import { MAX_SCOPE_CHARS, projectScopeFor } from '../runs/feature-memory/project-scope.ts';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const MAX_OFFSET = 100_000;

const featureSchema = z.object({
  featureId: z.string(),
  projectScope: z.string(),
  title: z.string(),
  requirements: z.array(z.string()),
  acceptance: z.array(z.string()),
  source: z.enum(['auto', 'manual']).describe('auto: recorded on a gate pass; manual: capture_feature'),
  playbookId: z.string().nullable(),
  goal: z.string().nullable(),
  gate: z.enum(['pass', 'fail', 'unknown']),
  scores: z.record(z.string(), z.number()),
  statuses: z.record(z.string(), z.string()),
  remainingFindingIds: z.array(z.string()),
  supersedesFeatureId: z.string().nullable(),
  superseded: z.boolean().describe('true when a newer record supersedes this one: read that one instead'),
  supersededBy: z.string().nullable(),
  createdAt: z.string(),
});

const patternSchema = z.object({
  patternId: z.string(),
  title: z.string(),
  requirements: z.array(z.string()),
  acceptance: z.array(z.string()),
  publishedAt: z.string(),
  mine: z.boolean().describe('true for your own patterns, the only ones you can unpublish'),
});

const featureIdInput = (what: string) => z.string().min(1).max(100).describe(what);
const pageInput = {
  offset: z.number().int().min(0).max(MAX_OFFSET).default(0).describe('How many entries to skip (use nextOffset)'),
  limit: z.number().int().min(1).max(100).default(20).describe('Entries per page (at most 100)'),
};

function featureOut(f: FeatureView): Record<string, unknown> {
  return { ...f };
}

function patternOut(p: Pattern): Record<string, unknown> {
  return { ...p };
}

function notFound(featureId: string) {
  return errorResult('feature_not_found', `No feature ${featureId} in this account`, {
    featureId,
    detail: 'Use a featureId that list_feature_memory or recall_context answered to this account',
  });
}

export function registerFeatureTools(server: McpServer, ctx: { caller: Caller; memory: FeatureMemory }): void {
  const { features, patterns } = ctx.memory;
  const accountId = ctx.caller.account.id;

  server.registerTool(
    'recall_context',
    configOnce(ctx.memory, 'recall_context', () => ({
      title: 'Recall feature memory',
      description:
        'Call before building or rebuilding something: what this account already recorded for a project. A feature is recorded ' +
        'automatically when verify_task, run_playbook or solve_task reach loop.gate pass (unless input.featureMemory.capture is ' +
        'false), or by hand with capture_feature. Pass projectScope (your own name for the project, as you passed it to the ' +
        'run) or url (its origin is the scope the runs used when you named none; inline HTML runs use the scope "local"); ' +
        'with neither, the newest features of every scope and the list of scopes. Features come newest first; superseded: true ' +
        'marks a record a newer one replaced (read supersededBy). Reuse the current records\' requirements and acceptance. Free.',
      inputSchema: {
        projectScope: z.string().max(MAX_SCOPE_CHARS).optional().describe('The project scope to recall'),
        url: z.string().max(2000).optional().describe('A page of the project: its origin is the scope'),
        limit: z.number().int().min(1).max(50).default(20).describe('Features to return at most'),
      },
      outputSchema: {
        projectScope: z.string().nullable().describe('The scope read, or null for every scope'),
        features: z.array(featureSchema),
        total: z.number().int().describe('Features stored for the scope (or the account)'),
        scopes: z.array(z.object({ projectScope: z.string(), features: z.number().int(), latestAt: z.string() })),
        hint: z.string(),
      },
      annotations: READ_ONLY,
    })),
    async ({ projectScope, url, limit }) => {
      const scope = (projectScope?.trim() ?? '') !== '' || url ? projectScopeFor(projectScope, url) : null;
      const { features: list, total } = await features.list(accountId, { projectScope: scope ?? undefined, limit });
      const scopes = await features.scopes(accountId, 50);
      const current = list.filter((f) => !f.superseded).length;
      const hint =
        total === 0
          ? scope === null
            ? 'Nothing is stored yet. Build the feature, then verify_task records it when its gate passes (or capture_feature records it by hand).'
            : `Nothing is stored for ${scope}. Check scopes for another name of the project, or build it and let verify_task record the pass.`
          : `${total} feature(s) stored; ${current} of those shown are current (not superseded). Reuse their requirements and acceptance; capture_feature with supersedesFeatureId refines one.`;
      return result({ projectScope: scope, features: list.map(featureOut), total, scopes, hint });
    },
  );

  server.registerTool(
    'capture_feature',
    configOnce(ctx.memory, 'capture_feature', () => ({
      title: 'Capture a feature',
      description:
        'Records a feature by hand (source manual): a title, its requirements and acceptance criteria. With supersedesFeatureId ' +
        'the new record replaces that one (it keeps that record\'s project scope and acceptance unless you give new ones, and, ' +
        'without a baseline, its scores and gate). baseline: a prior solve_task/run_playbook/verify_task result, a get_run ' +
        'payload or a bare jobReport of this account (sealed: another account\'s or an edited one is refused), whose scores, ' +
        'statuses and remaining findings the record keeps, with the gate judged from that report. A superseded or missing ' +
        'feature answers feature_not_found. ' +
        `An account keeps at most ${MAX_FEATURES_PER_ACCOUNT} features. Free.`,
      inputSchema: {
        title: z.string().trim().min(1).max(MAX_TITLE_CHARS).describe('A short name for the feature'),
        requirements: z.array(z.string().trim().min(1).max(MAX_ITEM_CHARS)).min(1).max(MAX_ITEMS).describe('What the feature must do, one requirement a string'),
        acceptance: z.array(z.string().trim().min(1).max(MAX_ITEM_CHARS)).max(MAX_ITEMS).optional().describe('How to tell it is done, one criterion a string'),
        projectScope: z.string().max(MAX_SCOPE_CHARS).optional().describe('The project scope (default: the superseded record\'s, else the baseline page\'s origin, else "local")'),
        supersedesFeatureId: z.string().min(1).max(100).optional().describe('The featureId this record replaces'),
        baseline: z.record(z.string(), z.unknown()).optional().describe('A prior result or jobReport to take scores, findings and gate from'),
      },
      outputSchema: { feature: featureSchema },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    })),
    async (args) => {
      let checkedBaseline: BaselineReading | undefined;
      if (args.baseline !== undefined && ctx.memory.reportKey) {
        // A sealed jobReport of this account only: another account's, a forged or a truncated one
        // is refused, and the gate is judged from the report, not taken from the unsealed loop.
        const found = extractBaseline(args.baseline, { key: ctx.memory.reportKey(accountId) });
        if (!found.ok) return errorResult(found.code, found.message);
        const report = found.report;
        checkedBaseline = { snapshot: snapshotOf(report), gate: evaluateGate(report, report.gatePolicy).gate, playbookId: report.playbookId, goal: null, url: null };
      }
      const captured = await features.capture({ accountId, ...args, checkedBaseline });
      if (captured.kind === 'superseded_not_found') return notFound(captured.featureId);
      if (captured.kind === 'bad_baseline') {
        return errorResult('bad_baseline', 'The baseline holds no jobReport, scores or findings', {
          detail: 'Pass a solve_task, run_playbook or verify_task result, a get_run payload, or a jobReport; or leave baseline out',
        });
      }
      if (captured.kind === 'memory_full') return errorResult('feature_memory_full', `This account keeps at most ${MAX_FEATURES_PER_ACCOUNT} features`, { detail: 'delete_feature the ones no longer needed' });
      return result({ feature: featureOut({ ...captured.feature, superseded: false, supersededBy: null }) });
    },
  );

  server.registerTool(
    'list_feature_memory',
    configOnce(ctx.memory, 'list_feature_memory', () => ({
      title: 'List feature memory',
      description:
        'The features this account recorded, newest first, in pages (offset, limit; nextOffset is null on the last page), ' +
        'optionally of one project scope. Each says whether a newer record supersedes it. Free.',
      inputSchema: { projectScope: z.string().max(MAX_SCOPE_CHARS).optional().describe('Only this project scope'), ...pageInput },
      outputSchema: {
        features: z.array(featureSchema),
        total: z.number().int(),
        offset: z.number().int(),
        nextOffset: z.number().int().nullable(),
      },
      annotations: READ_ONLY,
    })),
    async ({ projectScope, offset, limit }) => {
      const scope = projectScope?.trim() ? projectScopeFor(projectScope) : undefined;
      const page = await features.list(accountId, { projectScope: scope, offset, limit });
      const end = offset + page.features.length;
      return result({ features: page.features.map(featureOut), total: page.total, offset, nextOffset: end < page.total ? end : null });
    },
  );

  server.registerTool(
    'compare_feature_memory',
    configOnce(ctx.memory, 'compare_feature_memory', () => ({
      title: 'Compare two feature records',
      description:
        'What changed from one feature record (fromFeatureId, the older) to another (toFeatureId): requirements and acceptance ' +
        'added and removed, scoreDeltas per category (to minus from), status changes, findings resolved, new and remaining, ' +
        `the gate, and whether the feature matrix improved. ${IMPROVED_RULE} Free.`,
      inputSchema: {
        fromFeatureId: featureIdInput('The older record'),
        toFeatureId: featureIdInput('The newer record'),
      },
      outputSchema: {
        from: z.object({ featureId: z.string(), title: z.string(), createdAt: z.string(), gate: z.string(), source: z.string() }),
        to: z.object({ featureId: z.string(), title: z.string(), createdAt: z.string(), gate: z.string(), source: z.string() }),
        requirements: z.object({ added: z.array(z.string()), removed: z.array(z.string()), kept: z.array(z.string()) }),
        acceptance: z.object({ added: z.array(z.string()), removed: z.array(z.string()) }),
        scoreDeltas: z.record(z.string(), z.number().nullable()),
        statusChanges: z.array(z.object({ key: z.string(), from: z.string().nullable(), to: z.string().nullable() })),
        findings: z.object({ resolved: z.array(z.string()), new: z.array(z.string()), remaining: z.array(z.string()) }),
        gate: z.object({ from: z.string(), to: z.string() }),
        improvements: z.array(z.string()),
        regressions: z.array(z.string()),
        improved: z.boolean(),
        rule: z.string(),
      },
      annotations: READ_ONLY,
    })),
    async ({ fromFeatureId, toFeatureId }) => {
      const from = await features.get(accountId, fromFeatureId);
      if (!from) return notFound(fromFeatureId);
      const to = await features.get(accountId, toFeatureId);
      if (!to) return notFound(toFeatureId);
      return result({ ...compareFeatures(from, to) });
    },
  );

  server.registerTool(
    'delete_feature',
    configOnce(ctx.memory, 'delete_feature', () => ({
      title: 'Delete a feature',
      description:
        'Deletes one feature record of this account for good, and the community pattern published from it, if any. Records ' +
        'that superseded it stay (their supersedesFeatureId becomes null). Free.',
      inputSchema: { featureId: featureIdInput('The feature to delete') },
      outputSchema: { featureId: z.string(), deleted: z.boolean(), unpublishedPatternId: z.string().nullable() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    })),
    async ({ featureId }) => {
      const feature = await features.get(accountId, featureId);
      if (!feature) return notFound(featureId);
      const patternId = (await patterns.forFeature(accountId, featureId)) ?? null;
      const deleted = await features.delete(accountId, featureId);
      if (!deleted) return notFound(featureId);
      return result({ featureId, deleted: true, unpublishedPatternId: patternId });
    },
  );

  server.registerTool(
    'publish_feature_pattern',
    configOnce(ctx.memory, 'publish_feature_pattern', () => ({
      title: 'Publish a feature pattern',
      description:
        'Shares one of your features with every account as a community pattern: its title, requirements and acceptance only. ' +
        'Never shared: its URLs, project scope, scores, findings, goal or your account. The shared text is stripped of URLs, ' +
        'host names, IP addresses, e-mail addresses, key- or token-looking strings and the project\'s own name, each replaced ' +
        'by a placeholder ([url], [host], [ip], [email], [key], [project]); redactions counts them. Read the answer before ' +
        'relying on it. Publishing the same feature again answers the pattern already shared. Free.',
      inputSchema: { featureId: featureIdInput('The feature to share') },
      outputSchema: { pattern: patternSchema, redactions: z.number().int(), alreadyPublished: z.boolean() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    })),
    async ({ featureId }) => {
      const published = await patterns.publish(accountId, featureId);
      if (published.kind === 'feature_not_found') return notFound(featureId);
      if (published.kind === 'nothing_to_share') {
        return errorResult('nothing_to_share', `Feature ${featureId} has no requirements or acceptance to share`, { featureId, detail: 'capture_feature a refined record with requirements, then publish it' });
      }
      return result({ pattern: patternOut(published.pattern), redactions: published.redactions, alreadyPublished: published.alreadyPublished });
    },
  );

  server.registerTool(
    'unpublish_feature_pattern',
    configOnce(ctx.memory, 'unpublish_feature_pattern', () => ({
      title: 'Unpublish a feature pattern',
      description: 'Withdraws a community pattern you published (mine: true in list_community_patterns); the feature itself stays. Free.',
      inputSchema: { patternId: z.string().min(1).max(100).describe('The patternId to withdraw') },
      outputSchema: { patternId: z.string(), unpublished: z.boolean() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    })),
    async ({ patternId }) => {
      if (!(await patterns.unpublish(accountId, patternId))) {
        return errorResult('pattern_not_found', `No pattern ${patternId} published by this account`, {
          patternId,
          detail: 'Only the account that published a pattern can unpublish it; list_community_patterns marks yours with mine: true',
        });
      }
      return result({ patternId, unpublished: true });
    },
  );

  server.registerTool(
    'list_community_patterns',
    configOnce(ctx.memory, 'list_community_patterns', () => ({
      title: 'List community patterns',
      description:
        'Feature patterns every account published (title, requirements, acceptance; no publisher shown), newest first, in pages; ' +
        'with query, those containing every word of it. Use one as a starting list of requirements and acceptance criteria. Free.',
      inputSchema: { query: z.string().max(MAX_QUERY_CHARS).optional().describe('Words the pattern must contain'), ...pageInput },
      outputSchema: {
        patterns: z.array(patternSchema),
        total: z.number().int(),
        offset: z.number().int(),
        nextOffset: z.number().int().nullable(),
      },
      annotations: READ_ONLY,
    })),
    async ({ query, offset, limit }) => {
      const page = await patterns.list(accountId, { query, offset, limit });
      const end = offset + page.patterns.length;
      return result({ patterns: page.patterns.map(patternOut), total: page.total, offset, nextOffset: end < page.total ? end : null });
    },
  );
}
