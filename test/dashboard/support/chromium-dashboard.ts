// The dashboard in a real browser for the *-browser.test.ts files: the app on a loopback port,
// the Chromium the service's own engine is configured with (CHROMIUM_PROGRAM) driven by
// playwright-core, one page whose console errors, page errors and request URLs are recorded,
// check(name) (a screenshot for a person to look at, then axe-core: no critical or serious
// violation) and sign-in by the labelled fields. close() ends the browser and the app even when a
// test failed half-way or the other one fails to close, and openDashboardInChromium ends what it
// started when it fails itself (its caller never gets an object to close).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { findProgram } from '../../../src/engines/process.ts';
import { listen } from '../../support/http.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';

/** The password the browser tests give their accounts (long enough for the strength check). */
export const PASSWORD = 'correct horse battery staple';

// Evaluated in the page rather than added as a <script> tag: the pages' CSP (script-src 'self')
// rightly refuses an inline script, and turning the CSP off would hide a violation of our own.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

export interface DashboardInChromiumOptions {
  /** the screenshot folder's name starts with this (a temp folder, kept for a person to look at) */
  screens: string;
  /** what startTestApp is given */
  app?: Parameters<typeof startTestApp>[0];
  viewport?: { width: number; height: number };
  /** a console error the test causes on purpose (a 4xx page Chromium logs as a failed load); every other one is recorded */
  expectedError?: (text: string, url: string) => boolean;
}

export interface DashboardInChromium {
  t: TestApp;
  /** the app's loopback URL, e.g. http://127.0.0.1:41234 */
  base: string;
  browser: Browser;
  page: Page;
  /** console errors (but the expected ones) and uncaught page errors, in order; a CSP refusal logs one */
  consoleErrors: string[];
  /** every URL the page requested, in order */
  requests: string[];
  /** a full-page screenshot named `name`, then axe on the page: fails on a critical or serious violation */
  check(name: string): Promise<void>;
  axeViolations(): Promise<AxeViolation[]>;
  /** fills the current sign-in form's labelled fields and presses Sign in (what follows is the caller's to wait for) */
  submitSignIn(email: string, password: string): Promise<void>;
  /** opens the sign-in page, signs in and waits for the overview */
  signIn(email: string, password: string): Promise<void>;
  /** closes the browser, then the app; both are tried even if one fails */
  close(): Promise<void>;
}

/**
 * Runs every closer in order, each even if one before it failed, then throws what failed (one
 * error as it is, several as an AggregateError). A closer may be missing (what was never opened).
 */
export async function closeAll(closers: (() => Promise<unknown> | undefined)[]): Promise<void> {
  const errors: unknown[] = [];
  for (const close of closers) {
    try {
      await close();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} closers failed`);
}

export async function openDashboardInChromium(options: DashboardInChromiumOptions): Promise<DashboardInChromium> {
  let t: TestApp | undefined;
  let browser: Browser | undefined;
  const close = (): Promise<void> => closeAll([() => browser?.close(), () => t?.close()]);
  try {
    t = await startTestApp(options.app);
    const base = await listen(t);
    // The program the chromium engine is configured with, found as it finds it.
    const executablePath = await findProgram(t.config.engines.chromium.CHROMIUM_PROGRAM);
    assert.ok(executablePath, `Chromium at ${t.config.engines.chromium.CHROMIUM_PROGRAM}`);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'], timeout: 60_000 });
    const page = await browser.newPage({ viewport: options.viewport ?? { width: 1100, height: 760 } });
    const consoleErrors: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => {
      const text = message.text();
      const { url } = message.location();
      if (message.type() === 'error' && !(options.expectedError?.(text, url) ?? false)) consoleErrors.push(`${text} at ${url}`);
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    page.on('request', (request) => requests.push(request.url()));
    const shots = mkdtempSync(join(tmpdir(), `${options.screens}-`));

    const axeViolations = async (): Promise<AxeViolation[]> => {
      await page.evaluate(AXE_SOURCE);
      // Page-side code as text: the project's TypeScript has no DOM types.
      return (await page.evaluate(
        `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
      )) as AxeViolation[];
    };
    const submitSignIn = async (email: string, password: string): Promise<void> => {
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
    };
    return {
      t,
      base,
      browser,
      page,
      consoleErrors,
      requests,
      axeViolations,
      async check(name) {
        const path = join(shots, `${name}.png`);
        await page.screenshot({ path, fullPage: true });
        console.log(`screenshot: ${path}`);
        const violations = await axeViolations();
        const serious = violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
        assert.deepEqual(serious, [], `${name}: ${JSON.stringify(serious, null, 1)}`);
        if (violations.length > 0) console.log(`${name}: minor axe findings: ${violations.map((v) => `${v.id} (${v.impact})`).join(', ')}`);
      },
      submitSignIn,
      async signIn(email, password) {
        await page.goto(`${base}/dashboard/sign-in`);
        await submitSignIn(email, password);
        await page.waitForURL(`${base}/dashboard`);
      },
      close,
    };
  } catch (error) {
    // The caller gets no object to close: what was started is ended here, and the first error stands.
    await close().catch(() => undefined);
    throw error;
  }
}
