import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { parseVideoRef, VIDEO_REF_FORMATS } from './video-ref.ts';

export const videoIdParser = defineTool({
  family: 'video-tools',
  slug: 'video-id-parser',
  title: 'Video ID parser',
  description:
    'Extracts the 11-character video id from a video URL or checks a bare id. Accepts watch URLs (/watch?v=ID), short-link URLs ' +
    '(short host /ID), /shorts/ID, /embed/ID (also /v/ID and the no-cookie embed host), /live/ID, on the www, m and music hosts, ' +
    'with or without the https:// scheme and with any extra query parameters. A start time in t or start (90, 90s, 1m30s, ' +
    '1h2m3s) is returned in seconds. Anything else is a 400 naming the field url. Also returns canonical watch, short and ' +
    'embed URLs for the id.',
  aliases: ['video id', 'extract video id', 'parse video url', 'video url parser', 'shorts id', 'video link id'],
  credits: 1,
  input: z.object({
    url: z.string().min(1).max(2048).describe('A video URL or an 11-character video id'),
  }),
  output: z.object({
    videoId: z.string().describe('The 11-character video id'),
    format: z.enum(VIDEO_REF_FORMATS).describe('Which input shape was recognised'),
    startSeconds: z.number().int().nullable().describe('Start offset in seconds from t or start, or null'),
    watchUrl: z.string(),
    shortUrl: z.string(),
    embedUrl: z.string(),
  }),
  examples: [
    {
      title: 'Watch URL with a start time',
      input: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=1m30s' },
      output: {
        videoId: 'dQw4w9WgXcQ',
        format: 'watch',
        startSeconds: 90,
        watchUrl: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        shortUrl: 'https://youtu.be/dQw4w9WgXcQ',
        embedUrl: 'https://www.youtube.com/embed/dQw4w9WgXcQ',
      },
    },
    {
      title: 'Shorts URL',
      input: { url: 'youtube.com/shorts/aqz-KE-bpKQ' },
      output: {
        videoId: 'aqz-KE-bpKQ',
        format: 'shorts',
        startSeconds: null,
        watchUrl: 'https://www.youtube.com/watch?v=aqz-KE-bpKQ',
        shortUrl: 'https://youtu.be/aqz-KE-bpKQ',
        embedUrl: 'https://www.youtube.com/embed/aqz-KE-bpKQ',
      },
    },
  ],
  run({ url }) {
    const { videoId, format, startSeconds } = parseVideoRef(url, 'url');
    return {
      videoId,
      format,
      startSeconds,
      watchUrl: `https://www.youtube.com/watch?v=${videoId}`,
      shortUrl: `https://youtu.be/${videoId}`,
      embedUrl: `https://www.youtube.com/embed/${videoId}`,
    };
  },
});
