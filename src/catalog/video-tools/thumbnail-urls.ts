import { z } from 'zod';
import { defineTool } from '../../core/define-tool.ts';
import { parseVideoRef } from './video-ref.ts';

const SIZES = [
  { size: 'default', width: 120, height: 90 },
  { size: 'mqdefault', width: 320, height: 180 },
  { size: 'hqdefault', width: 480, height: 360 },
  { size: 'sddefault', width: 640, height: 480 },
  { size: 'maxresdefault', width: 1280, height: 720 },
] as const;

const SIZE_NAMES = ['default', 'mqdefault', 'hqdefault', 'sddefault', 'maxresdefault'] as const;

function thumbnailsFor(videoId: string) {
  return SIZES.map(({ size, width, height }) => ({
    size,
    width,
    height,
    url: `https://img.youtube.com/vi/${videoId}/${size}.jpg`,
  }));
}

export const thumbnailUrls = defineTool({
  family: 'video-tools',
  slug: 'thumbnail-urls',
  title: 'Video thumbnail URLs',
  description:
    'Lists the standard thumbnail image URLs of a video, given its URL or 11-character id (same URL shapes as video-id-parser; ' +
    'anything else is a 400 naming url): default 120×90, mqdefault 320×180, hqdefault 480×360, sddefault 640×480 and ' +
    'maxresdefault 1280×720, smallest first. The URLs are built from the id without fetching anything: sddefault and ' +
    'maxresdefault exist only when the video was uploaded in a high enough resolution, hqdefault always exists.',
  aliases: ['video thumbnail', 'thumbnail downloader', 'thumbnail url', 'video cover image', 'maxresdefault', 'hqdefault'],
  credits: 1,
  input: z.object({
    url: z.string().min(1).max(2048).describe('A video URL or an 11-character video id'),
  }),
  output: z.object({
    videoId: z.string(),
    thumbnails: z.array(
      z.object({
        size: z.enum(SIZE_NAMES),
        width: z.number().int(),
        height: z.number().int(),
        url: z.string(),
      }),
    ),
  }),
  examples: [
    {
      title: 'Thumbnails of a short link',
      input: { url: 'https://youtu.be/dQw4w9WgXcQ' },
      output: {
        videoId: 'dQw4w9WgXcQ',
        thumbnails: [
          { size: 'default', width: 120, height: 90, url: 'https://img.youtube.com/vi/dQw4w9WgXcQ/default.jpg' },
          { size: 'mqdefault', width: 320, height: 180, url: 'https://img.youtube.com/vi/dQw4w9WgXcQ/mqdefault.jpg' },
          { size: 'hqdefault', width: 480, height: 360, url: 'https://img.youtube.com/vi/dQw4w9WgXcQ/hqdefault.jpg' },
          { size: 'sddefault', width: 640, height: 480, url: 'https://img.youtube.com/vi/dQw4w9WgXcQ/sddefault.jpg' },
          { size: 'maxresdefault', width: 1280, height: 720, url: 'https://img.youtube.com/vi/dQw4w9WgXcQ/maxresdefault.jpg' },
        ],
      },
    },
  ],
  run({ url }) {
    const { videoId } = parseVideoRef(url, 'url');
    return { videoId, thumbnails: thumbnailsFor(videoId) };
  },
});
