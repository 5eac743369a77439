// The browser tab a lab run loads its page in. Opening a tab costs a renderer start, which on a
// busy machine is a second or more: most of a small page's run. So when a run ends, the next
// run's tab is made ahead (a context with the metrics script and a route that answers nothing
// until a run hands it its network), one per browser at most; a run that finds none makes its own.
// Every run still gets a context no other page has used, and closes it when it ends.
import type { Browser, BrowserContext, Page, Route, WebSocketRoute } from 'playwright-core';
import { LAB_INIT_SCRIPT } from './lab-metrics.ts';
import type { LabNetwork } from './lab-network.ts';

/** Lighthouse's desktop viewport, so the two measure the same layout. */
export const LAB_VIEWPORT = { width: 1350, height: 940 };

export interface LabTab {
  context: BrowserContext;
  page: Page;
  /** from now on the tab's requests go to this run's network */
  use(network: LabNetwork): void;
}

const spares = new WeakMap<Browser, Promise<LabTab | null>>();

/** The tab made ahead for this browser if it is still alive, else a new one. */
export async function openLabTab(browser: Browser): Promise<LabTab> {
  const spare = spares.get(browser);
  spares.delete(browser);
  const tab = spare === undefined ? null : await spare;
  if (tab !== null && browser.isConnected() && !tab.page.isClosed()) return tab;
  if (tab !== null) void tab.context.close().catch(() => undefined);
  return makeTab(browser);
}

/** Makes the next run's tab in the background, unless one is ready or on its way. */
export function prepareSpareLabTab(browser: Browser): void {
  if (spares.has(browser) || !browser.isConnected()) return;
  spares.set(browser, makeTab(browser).catch(() => null));
}

async function makeTab(browser: Browser): Promise<LabTab> {
  let network: LabNetwork | null = null;
  const context = await browser.newContext({ viewport: LAB_VIEWPORT, serviceWorkers: 'block', acceptDownloads: false });
  try {
    await context.addInitScript({ content: LAB_INIT_SCRIPT });
    await context.route('**/*', (route: Route) => (network === null ? route.abort('blockedbyclient') : network.handle(route)));
    await context.routeWebSocket(/.*/, (ws: WebSocketRoute) => {
      if (network === null) void ws.close({ code: 1008, reason: 'blocked by the lab' }).catch(() => undefined);
      else network.handleWebSocket(ws);
    });
    const page = await context.newPage();
    return {
      context,
      page,
      use: (next) => {
        network = next;
      },
    };
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
}
