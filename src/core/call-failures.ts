// What a failed call comes to: the ServiceError a surface answers with (an unexpected error is
// logged with its cause and answered without it), and whether its credits are given back.
import type { FastifyBaseLogger } from 'fastify';
import { ServiceError, isServiceError } from './errors.ts';

/** Failures after which nothing was done, so nothing is charged; see isRefunded. */
const NOTHING_DONE = new Set([
  'validation_error',
  // an engine or the fetcher refused to queue the job
  'engine_busy',
  'fetch_busy',
  // a URL tool's page could not be had: nothing was analysed
  'invalid_url',
  'url_not_allowed',
  'fetch_failed',
  // ai-models: the video was refused before any provider call (not a video, too large or long,
  // a platform page the provider cannot be sent)
  'not_a_video',
  'video_too_large',
  'video_too_long',
  'video_not_downloadable',
]);

/**
 * Which failures give the credits back: the service's own (5xx), input the tool rejected as
 * invalid (400), a job an engine or the fetcher refused to queue (429: no work was done), and a
 * URL that was refused or could not be fetched (nothing was analysed). Anything else the user's
 * input caused, such as a well-formed file the engine cannot read or a document that held a
 * healthy engine to its time limit (422), keeps the charge, because the work was done.
 */
export function isRefunded(status: number, error: string): boolean {
  return status >= 500 || NOTHING_DONE.has(error);
}


/** Any failure as a ServiceError; unexpected ones are logged with their cause and answered without it. */
export function toServiceError(err: unknown, log: FastifyBaseLogger): ServiceError {
  if (isServiceError(err)) {
    if (err.status >= 500) log.error({ err, cause: err.cause }, err.message);
    return err;
  }
  log.error({ err }, 'unexpected error');
  return new ServiceError(500, 'internal_error', 'The service failed while handling the request', {
    detail: 'The error was logged with the request id; credits for a failed call are refunded',
  });
}
