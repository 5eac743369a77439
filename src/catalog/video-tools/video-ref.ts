// Shared by the video tools: turns a video URL or bare id into the 11-character video id.
// Not a tool itself (exports no tool), so the catalog loader ignores it.
import { invalidInput } from '../../core/errors.ts';

export const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;

export const VIDEO_REF_FORMATS = ['id', 'watch', 'short-link', 'shorts', 'embed', 'live'] as const;
export type VideoRefFormat = (typeof VIDEO_REF_FORMATS)[number];

export interface VideoRef {
  videoId: string;
  format: VideoRefFormat;
  /** Start offset from a `t` or `start` query parameter, when present and readable. */
  startSeconds: number | null;
}

const LONG_HOSTS = new Set([
  'youtube.com',
  'www.youtube.com',
  'm.youtube.com',
  'music.youtube.com',
  'youtube-nocookie.com',
  'www.youtube-nocookie.com',
]);
const SHORT_HOSTS = new Set(['youtu.be', 'www.youtu.be']);

const PATH_FORMATS: Record<string, VideoRefFormat> = { shorts: 'shorts', embed: 'embed', v: 'embed', e: 'embed', live: 'live' };

export const VIDEO_REF_HELP =
  'must be an 11-character video id or a video URL of the form /watch?v=ID, short link /ID, /shorts/ID, /embed/ID or /live/ID';

/** "90", "90s", "1m30s", "1h2m3s" → seconds; anything else → null. */
export function parseStart(value: string | null): number | null {
  if (value === null) return null;
  const match = /^(?:(\d{1,5})h)?(?:(\d{1,5})m)?(?:(\d{1,7})s?)?$/.exec(value.trim());
  if (!match || value.trim() === '') return null;
  const [, h, m, s] = match;
  return Number(h ?? 0) * 3600 + Number(m ?? 0) * 60 + Number(s ?? 0);
}

function fromUrl(text: string): VideoRef | null {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const host = url.hostname.toLowerCase();
  const segments = url.pathname.split('/').filter((s) => s !== '');
  const startSeconds = parseStart(url.searchParams.get('t') ?? url.searchParams.get('start'));
  let videoId: string | undefined;
  let format: VideoRefFormat;
  if (SHORT_HOSTS.has(host)) {
    if (segments.length !== 1) return null;
    videoId = segments[0];
    format = 'short-link';
  } else if (LONG_HOSTS.has(host)) {
    const [first, second] = segments;
    if (first === 'watch' && segments.length === 1) {
      videoId = url.searchParams.get('v') ?? undefined;
      format = 'watch';
    } else if (first !== undefined && first in PATH_FORMATS && segments.length === 2) {
      videoId = second;
      format = PATH_FORMATS[first] ?? 'embed';
    } else {
      return null;
    }
  } else {
    return null;
  }
  if (videoId === undefined || !VIDEO_ID.test(videoId)) return null;
  return { videoId, format, startSeconds };
}

/** Parses a video URL or id; throws a 400 naming `field` when it is neither. */
export function parseVideoRef(raw: string, field = 'url'): VideoRef {
  const text = raw.trim();
  if (VIDEO_ID.test(text)) return { videoId: text, format: 'id', startSeconds: null };
  const ref = fromUrl(text);
  if (ref === null) throw invalidInput('Not a recognised video URL or video id', [{ field, message: VIDEO_REF_HELP }]);
  return ref;
}
