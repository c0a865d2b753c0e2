/**
 * What a stored file is served as. The uploaded name and content type are the client's word: the
 * name is cleaned before it is stored and quoted safely when served; the type is served only when it
 * cannot be rendered as active content, and always with nosniff and as an attachment.
 */

/** Types served as themselves; anything else is application/octet-stream. */
const SAFE_TYPES = new Set([
  'application/pdf',
  'application/zip',
  'application/gzip',
  'application/json',
  'text/plain',
  'text/csv',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'audio/mpeg',
  'audio/ogg',
  'audio/wav',
  'audio/mp4',
  'video/mp4',
  'video/webm',
  'video/quicktime',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
]);

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}$/;

/** The type as stored: lower-case `type/subtype` without parameters, or application/octet-stream. */
export function normalizeContentType(given: string | undefined): string {
  const base = (given ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return MIME.test(base) ? base : 'application/octet-stream';
}

export function servedContentType(stored: string): string {
  return SAFE_TYPES.has(stored) ? stored : 'application/octet-stream';
}

/**
 * Control, format and separator characters other than the space: bidi controls (the Arabic letter mark
 * too) that make `txt.exe` read `exe.txt`, zero-width spaces, BOMs, line and paragraph separators. Not
 * the joiners and tag characters that real names are written with: the zero-width non-joiner of Persian
 * (`می‌خواهم`), the joiner of emoji sequences (`👨‍👩‍👧`), the tags of subdivision flags.
 */
// biome-ignore lint/suspicious/noMisleadingCharacterClass: the joiners and tag characters are listed alone on purpose, to keep them out of the class that follows
const INVISIBLE_OR_CONTROL = /(?![\u200c\u200d\u{e0020}-\u{e007f}])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** The last path segment, without control, invisible or reserved characters, at most 200 characters. */
export function sanitizeFileName(given: string | undefined): string {
  const last = (given ?? '').split(/[/\\]/).pop() ?? '';
  const cleaned = last
    .normalize('NFC')
    .replace(INVISIBLE_OR_CONTROL, '_')
    .replace(/["<>:|?*]/g, '_')
    .trim()
    .replace(/^\.+/, '');
  const limited = [...cleaned].slice(0, 200).join('');
  return limited === '' ? 'file' : limited;
}

/** RFC 6266: an ASCII fallback for old clients and the exact name in RFC 5987 encoding. */
export function contentDispositionOf(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
