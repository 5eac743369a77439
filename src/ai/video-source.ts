// Where video-insight's video comes from. A public video-platform page (a watch, short-link,
// shorts, embed or live URL) is named as it is to a provider that reads those itself (Gemini);
// any other http(s) URL is downloaded through the egress-safe fetcher, in the calling account's
// fetch slots (the same SSRF rules as every URL tool), bounded by size, and its type is checked
// by content. Every refusal here names `videoUrl` and comes before any provider call, so it
// costs nothing (core/call-failures.ts).
import type { PageFetcher } from '../analysis/url-report.ts';
import { ServiceError, isServiceError } from '../core/errors.ts';
import { parseVideoRef } from '../catalog/video-tools/video-ref.ts';
import type { VideoContainer } from '../engines/ffmpeg-video.ts';
import { notAVideo } from '../engines/ffmpeg-video.ts';

/** The largest video downloaded (FETCH_MAX_BYTES applies too, whichever is smaller). */
export const VIDEO_MAX_BYTES = 50 * 1024 * 1024;
/** The longest video read, in seconds. */
export const VIDEO_MAX_SECONDS = 20 * 60;

const PLATFORM_HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com', 'youtu.be', 'www.youtu.be', 'youtube-nocookie.com', 'www.youtube-nocookie.com']);

export const VIDEO_MIME: Record<VideoContainer, string> = { mp4: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm', mkv: 'video/x-matroska', avi: 'video/x-msvideo' };

/** The canonical watch URL when `url` is a video-platform page, else undefined. */
export function platformVideoUrl(url: URL): string | undefined {
  if (!PLATFORM_HOSTS.has(url.hostname.toLowerCase())) return undefined;
  try {
    return `https://www.youtube.com/watch?v=${parseVideoRef(url.href, 'videoUrl').videoId}`;
  } catch {
    throw new ServiceError(400, 'validation_error', 'videoUrl: a video-platform URL that names no video', {
      detail: 'videoUrl: use a /watch?v=ID, short link, /shorts/ID, /embed/ID or /live/ID URL',
      extra: { issues: [{ field: 'videoUrl', message: 'names no video' }] },
    });
  }
}

export interface DownloadedVideo {
  bytes: Buffer;
  container: VideoContainer;
  mimeType: string;
  finalUrl: string;
}

/** Downloads a direct video through the egress-safe fetcher; refusals name videoUrl. */
export async function downloadVideo(url: string, fetchPage: PageFetcher): Promise<DownloadedVideo> {
  let facts;
  try {
    facts = await fetchPage(url, { limits: { maxBytes: VIDEO_MAX_BYTES } });
  } catch (err) {
    throw namingField(err);
  }
  if (facts.status !== 200) {
    throw new ServiceError(422, 'fetch_failed', `videoUrl: the video URL answered HTTP ${facts.status}`, { detail: `GET ${facts.finalUrl} answered ${facts.status}`, extra: { field: 'videoUrl', phase: 'http', url: facts.finalUrl } });
  }
  const container = videoContainer(facts.body);
  if (container === undefined) {
    throw notAVideo(`The content at the URL is ${facts.mediaType ?? 'of no declared type'} and does not start like an MP4, MOV, WebM, Matroska or AVI file`);
  }
  return { bytes: facts.body, container, mimeType: VIDEO_MIME[container], finalUrl: facts.finalUrl };
}

/** The fetcher's refusals (invalid_url, url_not_allowed, fetch_failed) with the field named; a size cap as video_too_large. */
function namingField(err: unknown): unknown {
  if (!isServiceError(err)) return err;
  if (err.error === 'fetch_failed' && err.extra['phase'] === 'size') {
    return new ServiceError(422, 'video_too_large', 'videoUrl: the video is larger than this service downloads', { detail: err.detail, extra: { ...err.extra, field: 'videoUrl' } });
  }
  if (err.error === 'invalid_url' || err.error === 'url_not_allowed' || err.error === 'fetch_failed') {
    return new ServiceError(err.status, err.error, `videoUrl: ${err.message}`, { detail: err.detail, headers: err.headers, extra: { ...err.extra, field: 'videoUrl' } });
  }
  return err;
}

/** The container a file's first bytes say it is, or undefined. */
export function videoContainer(head: Buffer): VideoContainer | undefined {
  if (head.length < 12) return undefined;
  if (head.toString('latin1', 4, 8) === 'ftyp') {
    const brand = head.toString('latin1', 8, 12);
    // Audio-only and image brands of the same box format are not videos.
    if (['M4A ', 'M4B ', 'M4P ', 'F4A ', 'heic', 'heix', 'mif1', 'msf1', 'avif'].includes(brand)) return undefined;
    return brand === 'qt  ' ? 'mov' : 'mp4';
  }
  if (head.readUInt32BE(0) === 0x1a45dfa3) return head.subarray(0, 64).includes('webm') ? 'webm' : 'mkv';
  if (head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'AVI ') return 'avi';
  return undefined;
}
