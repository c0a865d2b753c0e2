import sharp from 'sharp';
import { AppError } from '../../shared/errors.js';
import type { ImageSize } from './messages.present.js';

/** Longest side of each stored variant, in pixels; `full` keeps the original dimensions. */
export const VARIANT_PIXELS: Record<Exclude<ImageSize, 'full'>, number> = { small: 160, medium: 600, large: 1500 };

export interface ImageLimits {
  /** Width times height. */
  maxPixels: number;
  /** The longest side, width or height. */
  maxSide: number;
  /** The encoded file. */
  maxBytes: number;
}

/**
 * The limits every decoded image is held to, message images and avatars alike: checked from the
 * header before any pixel is decoded (readImageHeader), the pixel count again by libvips
 * (limitInputPixels).
 * - maxPixels: 60 MP covers 48 MP phone cameras; a decompression bomb (a few KB of PNG that claims
 *   20,000 x 20,000) is refused without allocating its pixels.
 * - maxSide: within the pixel budget, a 59,000,000 x 1 PNG of 7 KB took 7 s of CPU to resize (21 s
 *   with fullImage, then failed: JPEG stops at 65,535); no camera or screen makes a side this long.
 * - maxBytes: the most encoded bytes handed to the decoder, whatever PARLEY_UPLOAD_LIMIT_MB allows for
 *   files (413 beyond).
 */
export const IMAGE_LIMITS: Readonly<ImageLimits> = { maxPixels: 60_000_000, maxSide: 16_384, maxBytes: 64 * 1024 * 1024 };

/** Formats accepted as input. SVG and PDF are refused: they are programs, not pictures. */
const ACCEPTED = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif', 'tiff']);

/** What the header of an accepted image says. */
export interface ImageHeader {
  width: number;
  height: number;
  hasAlpha: boolean;
  /** EXIF orientation, 1 when absent; 5 to 8 turn the image a quarter. */
  orientation: number;
}

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
 * Reads an upload's header only and holds it to the limits, so nothing too large is ever decoded:
 * 413 / 500000 over maxBytes; 400 / 400000 for what is not an accepted image, or has too many pixels
 * or too long a side. Every path that decodes an image calls this first.
 */
export async function readImageHeader(input: Buffer, limits: Readonly<ImageLimits> = IMAGE_LIMITS): Promise<ImageHeader> {
  if (input.length > limits.maxBytes) {
    throw new AppError('payloadTooLarge', `Image is too large: at most ${Math.floor(limits.maxBytes / (1024 * 1024))} MB.`, {
      detail: [{ field: 'body.file', message: `must be at most ${limits.maxBytes} bytes` }],
    });
  }
  let metadata: sharp.Metadata;
  try {
    // The header only, without a pixel limit: the dimensions are checked below with a message that says why.
    metadata = await sharp(input, { limitInputPixels: false }).metadata();
  } catch {
    throw refuse('File is not an image that can be read.');
  }
  const { width, height } = metadata;
  if (!metadata.format || !ACCEPTED.has(metadata.format) || !width || !height) {
    throw refuse('File is not an image that can be read (JPEG, PNG, WebP, GIF, AVIF, HEIF or TIFF).');
  }
  if (width * height > limits.maxPixels || Math.max(width, height) > limits.maxSide) {
    throw refuse(
      `Image is too large: ${width} x ${height} pixels; at most ${Math.floor(limits.maxPixels / 1_000_000)} megapixels and ${limits.maxSide} on a side.`,
    );
  }
  return { width, height, hasAlpha: metadata.hasAlpha === true, orientation: metadata.orientation ?? 1 };
}

/**
 * The decoder of an image whose header passed: libvips holds the pixel count again, refuses truncated
 * or corrupt pixel data (failOn 'warning', sharp's default, stated) rather than storing it half grey,
 * and turns the image as its EXIF orientation says.
 */
export function decoderOf(input: Buffer, limits: Readonly<ImageLimits> = IMAGE_LIMITS): sharp.Sharp {
  return sharp(input, { limitInputPixels: limits.maxPixels, failOn: 'warning' }).rotate();
}

/**
 * Decodes an upload and re-encodes every variant: auto-oriented from EXIF, then stripped of all
 * metadata (EXIF, GPS, XMP, ICC after conversion to sRGB), which sharp does unless asked to keep it.
 * Images with transparency become PNG, all others JPEG; an animation keeps its first frame.
 */
export async function processImage(input: Buffer, options: { keepFull: boolean; maxPixels?: number }): Promise<ProcessedImage> {
  const limits = options.maxPixels === undefined ? IMAGE_LIMITS : { ...IMAGE_LIMITS, maxPixels: options.maxPixels };
  const { width, height, hasAlpha, orientation } = await readImageHeader(input, limits);
  const format = hasAlpha ? 'png' : 'jpeg';
  const rotated = orientation >= 5;
  const base = decoderOf(input, limits);
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
