import type { Clock } from '../../clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import type { BlobStore } from '../../storage/blobs.js';
import type { Executor } from '../../storage/database.js';
import { newObjectId } from '../../storage/ids.js';
import { runTransaction } from '../../storage/transactions.js';
import { decoderOf, readImageHeader } from '../messages/images.js';
import { pointUserAtAvatar } from '../users/users.service.js';
import type { UserRow } from '../users/users.types.js';
import { createAvatarsStore } from './avatars.store.js';

export const AVATAR_SIZES = { large: 512, small: 128 } as const;
export type AvatarSize = keyof typeof AVATAR_SIZES;

const blobKey = (avatarId: string, size: AvatarSize): string => `avatar-${avatarId}-${size}`;

const refuse = (message: string): AppError => new AppError('badRequest', message, { detail: [{ field: 'body.file', message: message.replace(/\.$/, '') }] });

/**
 * Profile pictures: auto-oriented from EXIF, stripped of every metadata block (sharp keeps none
 * unless asked), resized to fit 512 px (`large`) and 128 px (`small`). PNG when the image has
 * transparency, JPEG otherwise.
 */
async function renderAvatar(input: Buffer): Promise<{ contentType: string; variants: Map<AvatarSize, Buffer> }> {
  // The limits of every image path (messages/images.ts), from the header, before any pixel is decoded.
  const header = await readImageHeader(input);
  const png = header.hasAlpha;
  const base = decoderOf(input);
  try {
    const entries = await Promise.all(
      (Object.entries(AVATAR_SIZES) as Array<[AvatarSize, number]>).map(async ([size, pixels]) => {
        const resized = base.clone().resize({ width: pixels, height: pixels, fit: 'inside', withoutEnlargement: true });
        return [size, await (png ? resized.png({ compressionLevel: 6 }) : resized.jpeg({ quality: 85 })).toBuffer()] as const;
      }),
    );
    return { contentType: png ? 'image/png' : 'image/jpeg', variants: new Map(entries) };
  } catch {
    throw refuse('Image is corrupt or truncated.');
  }
}

export function createAvatarsService(deps: { db: Executor; clock: Clock; blobs: BlobStore; findUser: (userId: string) => Promise<UserRow | undefined> }) {
  const { db, clock, blobs } = deps;
  const store = createAvatarsStore(db);

  async function removeBlobs(avatarId: string): Promise<void> {
    await Promise.all((Object.keys(AVATAR_SIZES) as AvatarSize[]).map((size) => blobs.delete(blobKey(avatarId, size))));
  }

  return {
    /** Stores a new picture and points the user at it; the previous picture is removed afterwards. */
    async setAvatar(userId: string, file: Buffer): Promise<UserRow> {
      if (!(await deps.findUser(userId))) throw notFound('User');
      const { contentType, variants } = await renderAvatar(file);
      const now = clock.now();
      const avatarId = newObjectId(now);
      for (const [size, data] of variants) await blobs.put(blobKey(avatarId, size), data);
      let previous: string | null = null;
      try {
        previous = await runTransaction(db, async (trx) => {
          const inTrx = createAvatarsStore(trx);
          const user = await inTrx.currentAvatarOf(userId);
          if (!user) throw notFound('User');
          await inTrx.insert({ id: avatarId, user_id: userId, content_type: contentType, created_at: now });
          await pointUserAtAvatar(trx, userId, avatarId, now);
          if (user.avatar !== null) await inTrx.delete(user.avatar);
          return user.avatar;
        });
      } catch (error) {
        await removeBlobs(avatarId);
        throw error;
      }
      if (previous !== null) await removeBlobs(previous);
      return (await deps.findUser(userId)) as UserRow;
    },

    /** The blob keys (`avatar-<id>-<size>`) an avatar row still points at; for the orphan-blob sweep. */
    async referencedBlobKeys(keys: readonly string[]): Promise<Set<string>> {
      const idOf = (key: string): string | null => /^avatar-(.+)-(?:large|small)$/.exec(key)?.[1] ?? null;
      const ids = [...new Set(keys.map(idOf).filter((id): id is string => id !== null))];
      const held = await store.heldIds(ids);
      return new Set(keys.filter((key) => held.has(idOf(key) ?? '')));
    },

    async open(avatarId: string, size: AvatarSize) {
      const row = await store.find(avatarId);
      if (!row) return null;
      const blob = await blobs.open(blobKey(avatarId, size));
      if (!blob) return null;
      return { ...blob, contentType: row.content_type, etag: `"${avatarId}-${size}"` };
    },
  };
}

export type AvatarsService = ReturnType<typeof createAvatarsService>;

/**
 * An erasure deletes the user's avatar rows with `db` (its transaction, where it runs one); the
 * blobs stay for the caller, which removes them once the rows are gone.
 */
export function deleteAvatarRowsOf(db: Executor, userId: string): Promise<void> {
  return createAvatarsStore(db).deleteAllOf(userId);
}
