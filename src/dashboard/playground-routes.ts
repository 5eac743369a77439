import type fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../accounts/account-store.ts';
import type { AnyTool } from '../core/define-tool.ts';
import { ServiceError } from '../core/errors.ts';
import type { InvokeRequest, Invoker } from '../core/invoke.ts';
import type { Outcome } from '../core/outcome.ts';
import type { FilePipeline } from '../files/file-pipeline.ts';
import { searchTools } from '../mcp/tool-search.ts';
import { outcomeToHttp } from '../rest/outcome-response.ts';
import type { DashboardContext, SignedInVisitor } from './dashboard-context.ts';
import { fieldsOf, text } from './form-fields.ts';
import { messagePage, type SignedInView } from './pages.ts';
import { FormJsonError, formFieldsOf, inputFromRaw, inputFromValues, postedValues, type FormField, type FormValues } from './playground-form.ts';
import { PLAYGROUND_PATH, pickerPage, toolPage, type RunError, type ToolView } from './playground-pages.ts';
import { curlSnippet, queryText, sdkSnippet } from './playground-snippets.ts';
import { readLeadingFields, receiveRest, UPLOAD_ROUTE, type LeadingFields } from './playground-upload.ts';

/** What the Playground needs beyond the dashboard's deps: the invoke path and REST's upload limits. */
export interface PlaygroundDeps {
  invoker: Invoker;
  files: FilePipeline;
  uploadLimitBytes: number;
  /** REST's multipart parser (@fastify/multipart), handed over by server.ts: only rest/ and the entry points load Fastify's plugins (test/platform/layering.test.ts) */
  multipart: typeof fastifyMultipart;
}

const PAGE_SIZE = 25;

/** A call's fields as sent: what the form gave, and for the snippets the same again. */
interface CallFields {
  values: FormValues | undefined;
  raw: string | undefined;
  input: Record<string, unknown>;
}

function runErrorOf(error: ServiceError): RunError {
  const issues = Array.isArray(error.extra['issues']) ? (error.extra['issues'] as { field?: unknown; message?: unknown }[]) : [];
  return {
    status: error.status,
    code: error.error,
    message: error.message,
    detail: error.detail === error.message ? '' : error.detail,
    issues: issues.map((i) => ({ field: String(i.field ?? ''), message: String(i.message ?? '') })),
  };
}

/** A form value that is not JSON where JSON was asked for: refused like REST's malformed JSON body, before any call. */
function jsonRefusal(error: FormJsonError): ServiceError {
  return new ServiceError(400, 'invalid_json', error.message, { extra: { issues: [{ field: error.field, message: 'not valid JSON' }] } });
}

/**
 * REST carries a GET tool's fields in the query string and a file tool's options in multipart
 * fields: text. The Playground sends them as text too, so its call is the snippet's call.
 */
function asSent(tool: AnyTool, input: Record<string, unknown>): Record<string, unknown> {
  if (!tool.upload && tool.method !== 'GET') return input;
  return Object.fromEntries(Object.entries(input).map(([name, value]) => [name, queryText(value)]));
}

/** The form's fields as the tool's input: the raw JSON when that button was pressed, else the labelled fields. */
function callFields(formFields: readonly FormField[], read: (name: string) => string | undefined): CallFields {
  const values = postedValues(formFields, read);
  const raw = read('raw');
  if (read('mode') === 'raw') return { values, raw, input: inputFromRaw(raw ?? '') };
  return { values, raw: undefined, input: inputFromValues(formFields, values) };
}

/**
 * The Playground: the catalog searched as MCP's discover_tools searches it (searchTools), a form
 * per tool from its input schema, and the call made through Invoker.invoke as one of the account's
 * own keys, looked up fresh by id, exactly as a REST call with that key (its scopes, the plan, the
 * quota, the rate limit, usage per key). The dashboard neither validates nor charges; the answer
 * is REST's own reading of the outcome (outcomeToHttp).
 */
export async function registerPlaygroundRoutes(app: FastifyInstance, ctx: DashboardContext): Promise<void> {
  const { catalog, accounts, publicBaseUrl } = ctx;
  const { invoker, files, uploadLimitBytes, multipart } = ctx.playground;
  const viewOf = (visitor: SignedInVisitor): SignedInView => ({ email: visitor.account.email, csrfToken: visitor.session.csrfToken });
  const activeKeys = async (visitor: SignedInVisitor) => (await accounts.listKeys(visitor.account.id)).filter((k) => k.revokedAt === null);
  const fieldsByTool = new Map<string, FormField[]>();
  const formFields = (tool: AnyTool): FormField[] => {
    let fields = fieldsByTool.get(tool.operationId);
    if (!fields) fieldsByTool.set(tool.operationId, (fields = formFieldsOf(tool)));
    return fields;
  };

  const toolOf = (request: FastifyRequest): AnyTool | undefined => catalog.get((request.params as { operationId?: string }).operationId ?? '');
  const noTool = (reply: FastifyReply) =>
    ctx.sendPage(reply, 404, messagePage('Tool not found', 'The catalog has no tool with that operationId.', { href: PLAYGROUND_PATH, label: 'Back to the Playground' }));

  /**
   * The caller a REST call with this key would be: the signed-in account (read on this request)
   * and its key `keyId`, read now. Another account's key id is not found, as an unknown one; a
   * revoked key is refused as the API refuses it.
   */
  async function callerFor(visitor: SignedInVisitor, keyId: string): Promise<Caller | ServiceError> {
    const key = (await accounts.listKeys(visitor.account.id)).find((k) => k.id === keyId);
    if (!key) return new ServiceError(404, 'key_not_found', `No API key ${keyId}`, { detail: 'Pick one of this account’s keys' });
    if (key.revokedAt !== null) return new ServiceError(401, 'api_key_revoked', 'The API key has been revoked', { detail: `Key ${key.id} was revoked at ${key.revokedAt}` });
    return { account: visitor.account, key };
  }

  /** The tool's page after a call (or a refusal before one), with the API's status. */
  async function answer(reply: FastifyReply, visitor: SignedInVisitor, tool: AnyTool, keyId: string, call: CallFields, outcome: Outcome | ServiceError, requestId: string, fileName?: string) {
    const view: ToolView = { tool, fields: formFields(tool), keys: await activeKeys(visitor), keyId, values: call.values, raw: call.raw, signedIn: viewOf(visitor) };
    const snippet = { tool, input: asSent(tool, call.input), publicBaseUrl, fileName };
    if (outcome instanceof ServiceError) {
      return ctx.sendPage(reply, outcome.status, toolPage({ ...view, error: runErrorOf(outcome) }));
    }
    const http = outcomeToHttp(outcome, requestId, tool.errorBody);
    const result = outcome.ok ? (outcome.result as { downloadUrl?: unknown } | null) : null;
    return ctx.sendPage(
      reply,
      http.status,
      toolPage({
        ...view,
        ...(outcome.ok ? {} : { error: runErrorOf(outcome.error) }),
        result: {
          status: http.status,
          envelope: http.body,
          charged: outcome.meter?.charged ?? 0,
          creditsRemaining: outcome.meter?.creditsRemaining,
          downloadUrl: typeof result?.downloadUrl === 'string' ? result.downloadUrl : undefined,
          curl: curlSnippet(snippet),
          sdk: sdkSnippet(snippet),
        },
      }),
    );
  }

  /** Aborted when the person goes away mid-call, as REST's tool routes do. */
  function abortOnClose(reply: FastifyReply): AbortSignal {
    const controller = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    return controller.signal;
  }

  app.get(PLAYGROUND_PATH, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    const query = request.query as Record<string, unknown>;
    const q = typeof query['q'] === 'string' ? query['q'].slice(0, 200) : '';
    const pageNumber = typeof query['page'] === 'string' && /^\d{1,4}$/.test(query['page']) ? Number(query['page']) : 1;
    const results = searchTools(catalog.tools, { query: q, page: pageNumber, pageSize: PAGE_SIZE });
    return ctx.sendPage(reply, 200, pickerPage({ query: q, results, signedIn: viewOf(visitor) }));
  });

  app.get(`${PLAYGROUND_PATH}/:operationId`, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    const tool = toolOf(request);
    if (!tool) return noTool(reply);
    return ctx.sendPage(reply, 200, toolPage({ tool, fields: formFields(tool), keys: await activeKeys(visitor), signedIn: viewOf(visitor) }));
  });

  // A JSON or URL tool: a form-urlencoded post (the dashboard's 64 KB form limit).
  app.post(`${PLAYGROUND_PATH}/:operationId`, async (request, reply) => {
    const visitor = await ctx.signedIn(request, reply);
    if (!visitor) return reply;
    const tool = toolOf(request);
    if (!tool || tool.upload) return noTool(reply);
    const fields = fieldsOf(request);
    const read = (name: string): string | undefined => (fields[name] === undefined ? undefined : text(fields, name));
    const keyId = text(fields, 'keyId');
    let call: CallFields;
    try {
      call = callFields(formFields(tool), read);
    } catch (error) {
      if (!(error instanceof FormJsonError)) throw error;
      const values = postedValues(formFields(tool), read);
      return answer(reply, visitor, tool, keyId, { values, raw: read('raw'), input: {} }, jsonRefusal(error), request.id);
    }
    const caller = await callerFor(visitor, keyId);
    if (caller instanceof ServiceError) return answer(reply, visitor, tool, keyId, call, caller, request.id);
    const outcome = await invoker.invoke({ caller, operationId: tool.operationId, input: asSent(tool, call.input), requestId: request.id, log: request.log, signal: abortOnClose(reply) });
    return answer(reply, visitor, tool, keyId, call, outcome, request.id);
  });

  // A file tool: multipart, in a scope of its own with REST's multipart parser and upload limit.
  // The file is streamed to the call's work folder by REST's own reader (receiveMultipart), once
  // the call is admitted; nothing goes through the form parser. The CSRF token and the key are
  // form fields sent before the file, read and checked before the call (playground-upload.ts).
  await app.register(async (scope) => {
    await scope.register(multipart, { throwFileSizeLimit: true, limits: { fileSize: uploadLimitBytes } });
    scope.post(UPLOAD_ROUTE, async (request, reply) => {
      const visitor = await ctx.signedIn(request, reply);
      if (!visitor) return reply;
      const tool = toolOf(request);
      const upload = tool?.upload;
      if (!tool || !upload) return noTool(reply);
      const leading = await readLeadingFields(request, uploadLimitBytes, visitor.session.csrfToken);
      if ('refusal' in leading) return ctx.refuse(request, reply, leading.refusal);
      const keyId = leading.fields['keyId'] ?? '';
      const fileName = leading.file?.filename || undefined;
      let call: CallFields = { values: postedValues(formFields(tool), (name) => leading.fields[name]), raw: undefined, input: {} };
      try {
        call = callFields(formFields(tool), (name) => leading.fields[name]);
      } catch {
        // The options may be completed by fields after the file; judged once all are read (below).
      }
      // A call refused before its upload is read (no such key, or the invoke path's refusal of the
      // key, plan or rate) leaves the file unread: drained, so the browser's upload ends and it reads the page.
      let read = false;
      const drain = () => {
        if (!read) leading.file?.file.resume();
      };
      const caller = await callerFor(visitor, keyId);
      if (caller instanceof ServiceError) {
        drain();
        return answer(reply, visitor, tool, keyId, call, caller, request.id, fileName);
      }
      const workDir = await files.createWorkDir();
      let outcome: Outcome;
      try {
        const invoke: InvokeRequest = {
          caller,
          operationId: tool.operationId,
          input: {},
          file: {
            kind: 'upload',
            receive: async (dir) => {
              read = true;
              const received = await receiveMultipart(request, leading, upload, dir, uploadLimitBytes);
              const all: Record<string, string> = { ...leading.fields, ...received.fields };
              try {
                call = callFields(formFields(tool), (name) => all[name]);
              } catch (error) {
                if (error instanceof FormJsonError) throw jsonRefusal(error);
                throw error;
              }
              return { fields: asSent(tool, call.input), upload: received.upload };
            },
          },
          workDir,
          requestId: request.id,
          log: request.log,
          signal: abortOnClose(reply),
        };
        outcome = await invoker.invoke(invoke);
      } finally {
        drain();
        await files.removeWorkDir(workDir);
      }
      return answer(reply, visitor, tool, keyId, call, outcome, request.id, fileName);
    });
  });

  /** The rest of the body (the file and any fields after it) through REST's reader; the form's own fields taken out. */
  async function receiveMultipart(request: FastifyRequest, leading: LeadingFields, upload: NonNullable<AnyTool['upload']>, dir: string, limit: number) {
    const received = await receiveRest(request, leading, upload, dir, limit);
    const fields: Record<string, string> = {};
    for (const [name, value] of Object.entries(received.fields)) if (typeof value === 'string') fields[name] = value;
    return { fields, upload: received.upload };
  }
}
