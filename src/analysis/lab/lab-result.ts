// What a lab run answers: the page's measured load in a real browser (Chromium, no throttling,
// a 1350x940 desktop viewport), the same metrics as Lighthouse's desktop preset would estimate
// them (lab-estimate.ts), every request it made and the ones the egress rules refused.
import { z } from 'zod';

const requestEntry = z.object({
  url: z.string().describe('The URL the page asked for (cut to 500 characters)'),
  reason: z.string().describe('Why it was not served'),
});

export const labResultSchema = z.object({
  fcpMs: z.number().nullable().describe('First Contentful Paint in ms from navigation start; null when the page never painted content'),
  lcpMs: z.number().nullable().describe('Largest Contentful Paint in ms from navigation start; null when none was recorded'),
  cls: z.number().describe('Cumulative Layout Shift: the largest session window of shifts without recent input'),
  tbtMs: z.number().describe('Total Blocking Time: the sum over long tasks after FCP of their time beyond 50 ms'),
  longTasks: z.number().int().describe('Long tasks (over 50 ms) recorded'),
  domContentLoadedMs: z.number().nullable().describe('DOMContentLoaded end in ms from navigation start'),
  loadMs: z.number().nullable().describe('load event end in ms from navigation start; null when the page had not loaded by the time limit'),
  requests: z.number().int().describe('Requests answered to the page through the egress-safe fetcher (a redirect chain counts once)'),
  bytes: z.number().int().describe('Bytes those responses took on the wire'),
  blocked: z.array(requestEntry).describe('Requests refused: addresses the egress rules forbid, other schemes, websockets, methods other than GET/HEAD, requests beyond the limits'),
  failed: z.array(requestEntry).describe('Requests allowed but whose fetch failed (DNS, connect, TLS, timeout, size)'),
  lcpElement: z
    .object({ element: z.string().nullable().describe('The element, as tag#id or tag.class'), url: z.string().nullable().describe("An image's URL") })
    .nullable()
    .describe('What the largest contentful paint painted, when the browser named it'),
  shiftedElements: z.array(z.string()).describe('Elements that moved in the largest layout-shift window (at most 5)'),
  blockingScripts: z
    .array(z.object({ script: z.string().describe('Script URL, or what invoked it'), ms: z.number().int().describe('Time it ran in frames that blocked input') }))
    .describe('The scripts the long tasks ran, longest first (at most 5), where the browser attributes them'),
  estimate: z
    .object({
      fcpMs: z.number().nullable(),
      lcpMs: z.number().nullable(),
      siMs: z.number().nullable().describe("Speed Index, from the simulated paints as Lantern weighs them at desktop's RTT (no filmstrip is recorded)"),
      tbtMs: z.number(),
      cls: z.number(),
      score: z.number().int().min(0).max(100).nullable().describe("0-100 on Lighthouse's desktop curves; null when the page painted nothing"),
    })
    .nullable()
    .describe(
      "The metrics as Lighthouse's desktop preset would report them: the requests on each metric's critical path replayed on its simulated link (40 ms RTT, 10 Mbps, CPU 1x), the measured CPU time kept; CLS and TBT as measured. The report's performance score is this score",
    ),
  durationMs: z.number().int().describe('Wall time of the lab run, from opening the browser context to reading the figures'),
  notes: z.array(z.string()).describe('What could not be measured, or was cut short, and why'),
});

export type LabResult = z.infer<typeof labResultSchema>;
export type LabRequestEntry = z.infer<typeof requestEntry>;
