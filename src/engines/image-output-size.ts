// The size an image job writes, in plain arithmetic with no import: both the server (before a job
// is queued, from the container's header) and the sandboxed worker (from the decoder's header,
// where only engine files without server imports are in view) bound results by IMAGE_MAX_PIXELS.
import type { ImageConvertJob } from './image-job.ts';

/** Formats that keep an animation's frames. */
export const ANIMATED_FORMATS: ReadonlySet<string> = new Set(['gif', 'webp']);

/**
 * The size a convert job writes from an input of `input` pixels (already upright), computed the
 * way libvips does: rotation first (a multiple of 90 swaps the sides, another angle takes the
 * bounding box), then the resize by its fit. Pure arithmetic, so the parent can refuse a result
 * over the limit before the job is queued and the worker again, from the decoder's own header.
 */
export function plannedOutputSize(input: { width: number; height: number }, job: Pick<ImageConvertJob, 'resize' | 'rotate'>): { width: number; height: number } {
  let { width: w, height: h } = input;
  const angle = job.rotate === undefined ? 0 : ((job.rotate % 360) + 360) % 360;
  if (angle === 90 || angle === 270) [w, h] = [h, w];
  else if (angle % 90 !== 0) {
    const rad = (angle * Math.PI) / 180;
    const [cos, sin] = [Math.abs(Math.cos(rad)), Math.abs(Math.sin(rad))];
    [w, h] = [Math.ceil(w * cos + h * sin), Math.ceil(w * sin + h * cos)];
  }
  const resize = job.resize;
  if (resize === undefined || (resize.width === undefined && resize.height === undefined)) return { width: w, height: h };
  const { width, height, fit } = resize;
  let scaleX: number;
  let scaleY: number;
  if (width !== undefined && height !== undefined) {
    if (fit === 'inside' || fit === 'outside') {
      const scale = fit === 'inside' ? Math.min(width / w, height / h) : Math.max(width / w, height / h);
      [scaleX, scaleY] = [scale, scale];
    } else {
      // cover and contain crop or pad to exactly the box; fill stretches to it.
      return { width, height };
    }
  } else {
    const scale = width !== undefined ? width / w : height! / h;
    [scaleX, scaleY] = [scale, scale];
  }
  if (resize.withoutEnlargement === true) [scaleX, scaleY] = [Math.min(1, scaleX), Math.min(1, scaleY)];
  return { width: Math.max(1, Math.round(w * scaleX)), height: Math.max(1, Math.round(h * scaleY)) };
}

/**
 * Why a result of `size` x `frames` is over the pixel limit (the one IMAGE_MAX_PIXELS also bounds
 * inputs by), naming the requested and the allowed size; null when it is within.
 */
export function outputOverLimit(size: { width: number; height: number }, frames: number, maxPixels: number): string | null {
  const pixels = size.width * size.height * Math.max(1, frames);
  if (pixels <= maxPixels) return null;
  const shape = `${size.width} x ${size.height} pixels${frames > 1 ? ` x ${frames} frames` : ''}`;
  return `The result would be ${shape} (${pixels.toLocaleString('en')} pixels); at most ${maxPixels.toLocaleString('en')} pixels are written (IMAGE_MAX_PIXELS): ask for a smaller width or height`;
}
