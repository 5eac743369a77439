// @tool-service/sdk: the public entry.
export { ToolServiceClient, type ClientOptions, type Envelope, type MethodAnswer, type MethodInput, type OperationMethod, type OperationMethods, type RawRequest, type RouteAnswer, type UrlMethod } from './client.ts';
export {
  ToolServiceError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  GoneError,
  ValidationError,
  RateLimitError,
  QuotaExceededError,
  InternalServerError,
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  STATUS_BY_CODE,
  errorFromBody,
  type ToolServiceErrorInit,
} from './errors.ts';
export type { APIPromise, LimitState, RequestOptions, ResponseMeta, WithMeta } from './http.ts';
export type { DownloadSource, FileInput, FileResult, FilesApi, Uploadable } from './files.ts';
export { OPERATIONS, MCP_TOOL_NAMES, type McpToolInputs, type McpToolName, type OperationId, type OperationKind, type OperationSpec, type OperationTypes, type RouteOperationId, type RouteTypes } from './generated/operations.ts';
export type * from './mcp.ts';
export type * from './loop.ts';
