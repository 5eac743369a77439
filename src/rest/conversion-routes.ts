import { z } from 'zod';
import type { Config } from '../config.ts';
import type { Catalog } from '../core/catalog.ts';
import type { RouteSpec } from './route-spec.ts';

const supportedConversions = z.object({
  supported_conversions: z.record(z.string(), z.array(z.string())).describe('Source format → target formats'),
  message: z.string(),
  limits: z.object({
    maxUploadBytes: z.number(),
    maxOutputBytes: z.number(),
    downloadUrlValiditySeconds: z.number(),
    retentionHours: z.number(),
    conversionTimeoutSeconds: z.number(),
    uploadField: z.string(),
  }),
});

/**
 * `GET /api/v1/<family>/supported-conversions` for every family that has conversions, derived
 * from the catalog's conversion tools: the map can never disagree with the endpoints.
 */
export function conversionRoutes(catalog: Catalog, config: Config): RouteSpec[] {
  const families = [...new Set(catalog.tools.filter((t) => t.conversion).map((t) => t.family))].sort();
  return families.map((family) => {
    const map: Record<string, string[]> = {};
    for (const tool of catalog.tools) {
      if (tool.family !== family || !tool.conversion) continue;
      (map[tool.conversion.from] ??= []).push(tool.conversion.to);
    }
    for (const targets of Object.values(map)) targets.sort();
    const body = {
      supported_conversions: Object.fromEntries(Object.entries(map).sort(([a], [b]) => a.localeCompare(b))),
      message: `POST /api/v1/${family}/<from>-to-<to> with the file in the multipart field "file"`,
      limits: {
        maxUploadBytes: config.uploadLimitBytes,
        maxOutputBytes: config.outputLimitBytes,
        downloadUrlValiditySeconds: config.downloadUrlTtlSeconds,
        retentionHours: config.fileRetentionMs / 3600_000,
        conversionTimeoutSeconds: config.engineJobTimeoutMs / 1000,
        uploadField: 'file',
      },
    };
    const route: RouteSpec = {
      method: 'GET',
      url: `/api/v1/${family}/supported-conversions`,
      operationId: `${family.replace(/-/g, '_')}_supported_conversions`,
      summary: `Conversions of the ${family} family`,
      description: 'Which source formats convert to which targets, and the limits that apply. Free, no key needed.',
      tag: family,
      auth: 'none',
      envelope: false,
      success: { status: 200, description: 'The conversion map and limits', result: supportedConversions },
      errors: [],
      handler: async () => body,
    };
    return route;
  });
}
