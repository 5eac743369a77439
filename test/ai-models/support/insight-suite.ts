// The setup the ai-models tests share: a provider stand-in (provider-stand-in.ts) the app reaches
// through its base-URL setting, optionally the loopback video web server, a test app configured
// for that provider, an account and its key, optionally the official MCP client on the app's
// /mcp; all of it started before the suite's tests and closed after them, in reverse order.
import { after, before } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CreateAccountInput } from '../../../src/accounts/account-store.ts';
import { listen } from '../../support/http.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';
import { startGeminiStandIn, startOpenAiStandIn, startVideoWeb, type StandIn, type VideoWeb } from './provider-stand-in.ts';

export type Provider = 'gemini' | 'openai-compatible';

/** The stand-in for `provider`. */
export function startStandIn(provider: Provider): Promise<StandIn> {
  return provider === 'gemini' ? startGeminiStandIn() : startOpenAiStandIn();
}

/** The environment that points the service at `standIn` as `provider`, with `key` as its API key. */
export function providerEnv(provider: Provider, key: string, standIn: StandIn): Record<string, string> {
  return provider === 'gemini'
    ? { AI_PROVIDER: 'gemini', GEMINI_API_KEY: key, GEMINI_BASE_URL: standIn.baseUrl }
    : { AI_PROVIDER: 'openai-compatible', OPENAI_API_KEY: key, OPENAI_BASE_URL: standIn.baseUrl };
}

/** The official MCP client (named `name`), connected over real HTTP to the app's /mcp with `apiKey`. */
export async function connectMcp(t: TestApp, apiKey: string, name: string): Promise<Client> {
  const base = await listen(t);
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
  return client;
}

export interface InsightSuiteOptions {
  provider: Provider;
  /** the provider API key the app is given (and the stand-in receives) */
  key: string;
  /** more of the app's environment (AI_MODEL, EGRESS_ALLOW, time limits…) */
  env?: Record<string, string>;
  /** the account the key belongs to: a pro plan with 1000 credits unless said otherwise */
  account?: Partial<CreateAccountInput>;
  /** start the loopback video web server too */
  web?: boolean;
  /** connect an MCP client of this name */
  mcpClient?: string;
}

/** What the suite's tests use; read it in tests and hooks (it is filled in by the suite's `before`). */
export interface InsightSuite {
  readonly t: TestApp;
  /** the stand-in of the configured provider */
  readonly provider: StandIn;
  readonly apiKey: string;
  readonly accountId: string;
  /** the video web server (options.web) */
  readonly web: VideoWeb;
  /** the MCP client (options.mcpClient) */
  readonly mcp: Client;
}

/**
 * Registers the suite's `before` and `after` hooks (call it in a describe callback, before that
 * suite's own hooks) and answers the object they fill in.
 */
export function insightSuite(options: InsightSuiteOptions): InsightSuite {
  let t: TestApp | undefined;
  let provider: StandIn | undefined;
  let web: VideoWeb | undefined;
  let mcp: Client | undefined;
  let account: { apiKey: string; accountId: string } | undefined;
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`insightSuite: ${what} is not there (not asked for, or read before the suite's before hook ran)`);
    return value;
  };
  before(async () => {
    provider = await startStandIn(options.provider);
    if (options.web) web = await startVideoWeb();
    t = await startTestApp({ env: { ...providerEnv(options.provider, options.key, provider), ...options.env } });
    account = await t.account(options.account ?? { plan: 'pro', quota: 1000 });
    if (options.mcpClient !== undefined) mcp = await connectMcp(t, account.apiKey, options.mcpClient);
  });
  after(async () => {
    await mcp?.close().catch(() => undefined);
    await t?.close();
    await provider?.close();
    await web?.close();
  });
  return {
    get t() {
      return ready(t, 'the app');
    },
    get provider() {
      return ready(provider, 'the provider stand-in');
    },
    get apiKey() {
      return ready(account, 'the account').apiKey;
    },
    get accountId() {
      return ready(account, 'the account').accountId;
    },
    get web() {
      return ready(web, 'the video web server');
    },
    get mcp() {
      return ready(mcp, 'the MCP client');
    },
  };
}
