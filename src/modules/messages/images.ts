import sharp from 'sharp';
import { AppError } from '../../shared/errors.js';
import type { ImageSize } from './messages.present.js';

/** Longest side of each stored variant, in pixels; `full` keeps the original dimensions. */
export const VARIANT_PIXELS: Record<Exclude<ImageSize, 'full'>, number> = { small: 160, medium: 600, large: 1500 };

/**
 * The largest image decoded, in pixels (60 MP covers 48 MP phone cameras). Checked from the header
 * before decoding, and again by libvips (limitInputPixels), so a decompression bomb (a few KB of PNG
 * that claims 20,000 x 20,000) is refused without allocating its pixels.
 */
export const MAX_INPUT_PIXELS = 60_000_000;
/**
 * The longest side decoded, in pixels. Within the pixel budget, a 59,000,000 x 1 PNG of 7 KB took
 * 7 s of CPU to resize (21 s with fullImage, then failed: JPEG stops at 65,535); no camera or screen
 * makes a side this long.
 */
export const MAX_IMAGE_SIDE = 16_384;

/** Formats accepted as input. SVG and PDF are refused: they are programs, not pictures. */
const ACCEPTED = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif', 'tiff']);

export interface ProcessedImage {
  format: 'jpeg' | 'png';
  /** Dimensions after auto-orientation. */
  width: number;
  height: number;
  variants: Map<ImageSize, Buffer>;
}

export const contentTypeOf = (format: 'jpeg' | 'png'): string => (format === 'png' ? 'image/png' : 'image/jpeg');

const refuse = (message: string): AppError => new AppError('badRequest', message, { detail: [{ field: 'body.file', message: message.replace(/\.$/, '') }] });

/**
 * Decodes an upload and re-encodes every variant: auto-oriented from EXIF, then stripped of all
 * metadata (EXIF, GPS, XMP, ICC after conversion to sRGB), which sharp does unless asked to keep it.
 * Images with transparency become PNG, all others JPEG; an animation keeps its first frame.
 */
export async function processImage(input: Buffer, options: { keepFull: boolean; maxPixels?: number }): Promise<ProcessedImage> {
  const limitInputPixels = options.maxPixels ?? MAX_INPUT_PIXELS;
  let metadata: sharp.Metadata;
  try {
    // Reads the header only; the dimensions are checked below with a message that says why.
    metadata = await sharp(input, { limitInputPixels: false }).metadata();
  } catch {
    throw refuse('File is not an image that can be read.');
  }
  const { width, height } = metadata;
  if (!metadata.format || !ACCEPTED.has(metadata.format) || !width || !height) {
    throw refuse('File is not an image that can be read (JPEG, PNG, WebP, GIF, AVIF, HEIF or TIFF).');
  }
  if (width * height > limitInputPixels || Math.max(width, height) > MAX_IMAGE_SIDE) {
    throw refuse(
      `Image is too large: ${width} x ${height} pixels; at most ${Math.floor(limitInputPixels / 1_000_000)} megapixels and ${MAX_IMAGE_SIDE} on a side.`,
    );
  }
  const format = metadata.hasAlpha ? 'png' : 'jpeg';
  const rotated = (metadata.orientation ?? 1) >= 5;
  // failOn 'warning' (sharp's default, stated): truncated or corrupt pixel data is refused rather
  // than stored half grey.
  const base = sharp(input, { limitInputPixels, failOn: 'warning' }).rotate();
  const encode = (pipeline: sharp.Sharp, quality: number): Promise<Buffer> =>
    (format === 'png' ? pipeline.png({ compressionLevel: 6 }) : pipeline.jpeg({ quality })).toBuffer();

  const sizes = Object.entries(VARIANT_PIXELS) as Array<[Exclude<ImageSize, 'full'>, number]>;
  try {
    const encoded = await Promise.all([
      ...sizes.map(async ([size, pixels]) => {
        const resized = base.clone().resize({ width: pixels, height: pixels, fit: 'inside', withoutEnlargement: true });
        return [size, await encode(resized, 82)] as const;
      }),
      ...(options.keepFull ? [(async () => ['full', await encode(base.clone(), 92)] as const)()] : []),
    ]);
    return { format, width: rotated ? height : width, height: rotated ? width : height, variants: new Map(encoded) };
  } catch {
    throw refuse('Image is corrupt or truncated.');
  }
}
