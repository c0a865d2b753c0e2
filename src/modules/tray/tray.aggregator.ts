import { type DomainEvent, isEventOf } from '../../events/catalogue.js';
import { appendEvents, type OutboxEvent } from '../../events/outbox.js';
import type { Executor } from '../../storage/database.js';
import { isSocialEventData, SOCIAL_EVENT_TYPES, type SocialEventData, type SocialEventType } from '../social/social.events.js';
import type { TrayVerb } from './tray.describe.js';
import { createTrayStore, type TrayStore } from './tray.store.js';

/** A record takes matching events for 10 days from its creation (docs/contract.md, Limits). */
export const TRAY_WINDOW_MS = 10 * 24 * 3600 * 1000;

/** Where an adding event lands: the record key, and the source that a removal names later. */
interface Addition {
  ownerKey: string;
  verb: TrayVerb;
  targetId: string;
  targetType: 'community' | 'post';
  communityId: string | null;
  communityName: string | null;
  sourceKey: string;
}

const USER_OWNER = 'u:';
export const ownerKeyOfUser = (userId: string): string => `${USER_OWNER}${userId}`;
export const ownerKeyOfCommunity = (communityId: string): string => `c:${communityId}`;

/** What an event adds to the tray, or null when the tray ignores it (docs/contract.md, Events). */
function additionOf(type: SocialEventType, data: SocialEventData): Addition | null {
  const { post, actor } = data;
  switch (type) {
    case 'post.created':
      // Posts on a user's feed notify nobody.
      if (post.communityId === null) return null;
      return {
        ownerKey: ownerKeyOfCommunity(post.communityId),
        verb: 'post',
        targetId: post.communityId,
        targetType: 'community',
        communityId: post.communityId,
        communityName: post.communityName,
        sourceKey: `post:${data.sourceId}`,
      };
    case 'comment.created':
      // Replies are kept but feed no record; the owner's own comment notifies nobody.
      if ((data.parentId ?? null) !== null || actor.id === post.authorId) return null;
      return {
        ownerKey: ownerKeyOfUser(post.authorId),
        verb: 'comment',
        targetId: post.postId,
        targetType: 'post',
        communityId: post.communityId,
        communityName: post.communityName,
        sourceKey: `comment:${data.sourceId}`,
      };
    case 'post.reaction.added':
      if (data.reactionName !== 'like' || actor.id === post.authorId) return null;
      return {
        ownerKey: ownerKeyOfUser(post.authorId),
        verb: 'like',
        targetId: post.postId,
        targetType: 'post',
        communityId: post.communityId,
        communityName: post.communityName,
        sourceKey: `like:${data.sourceId}`,
      };
    default:
      return null;
  }
}

/** The source whose contribution a removal event takes out, or null. */
function removalOf(type: SocialEventType, data: SocialEventData): string | null {
  switch (type) {
    case 'post.deleted':
      return `post:${data.sourceId}`;
    case 'comment.deleted':
      return `comment:${data.sourceId}`;
    case 'post.reaction.removed':
      return data.reactionName === 'like' ? `like:${data.sourceId}` : null;
    default:
      return null;
  }
}

/**
 * Rewrites a record's cached view (latest actors, lastUpdate, the image) from its actor rows, or
 * deletes the record when no actor is left.
 */
async function refreshRecord(store: TrayStore, recordId: number, communityName?: string | null): Promise<void> {
  const top = await store.topActors(recordId, 3);
  const latest = top[0];
  if (!latest) {
    await store.deleteRecords([recordId]);
    return;
  }
  await store.updateRecord(recordId, {
    last_update: latest.last_at,
    prev_update: top[1]?.last_at ?? null,
    top_actor_id: latest.actor_id,
    actors: JSON.stringify(top.map((actor) => ({ id: actor.actor_id, name: actor.name }))),
    image_avatar_id: latest.avatar_id,
    ...(communityName !== undefined ? { community_name: communityName } : {}),
  });
}

/** A record an event changed, as /notifications/read names it. */
interface ChangedRecord {
  ownerKey: string;
  verb: string;
  targetId: string;
  windowStart: number;
}

async function add(store: TrayStore, addition: Addition, data: SocialEventData, now: number): Promise<ChangedRecord | null> {
  const open = await store.latestWindow(addition.ownerKey, addition.verb, addition.targetId);
  let recordId: number;
  let windowStart = data.at;
  if (open && data.at - open.window_start <= TRAY_WINDOW_MS) {
    recordId = open.id;
    windowStart = open.window_start;
  } else {
    // A new window; an older record is left exactly as it was.
    recordId = await store.insertRecord({
      owner_key: addition.ownerKey,
      verb: addition.verb,
      target_id: addition.targetId,
      target_type: addition.targetType,
      window_start: data.at,
      last_update: data.at,
      prev_update: null,
      top_actor_id: null,
      community_id: addition.communityId,
      community_name: addition.communityName,
      actors_count: 0,
      actors: '[]',
      image_avatar_id: null,
      created_at: now,
    });
  }
  const { actor } = data;
  const inserted = await store.insertContribution({
    source_key: addition.sourceKey,
    record_id: recordId,
    actor_id: actor.id,
    at: data.at,
    name: actor.name,
    avatar_id: actor.avatarId,
  });
  if (!inserted) return null;
  const known = await store.findActor(recordId, actor.id);
  if (known) {
    if (data.at >= known.last_at) await store.updateActor(recordId, actor.id, { last_at: data.at, name: actor.name, avatar_id: actor.avatarId });
  } else {
    await store.insertActor({ record_id: recordId, actor_id: actor.id, last_at: data.at, name: actor.name, avatar_id: actor.avatarId });
    await store.addToActorsCount(recordId, 1);
  }
  await refreshRecord(store, recordId, addition.communityName);
  return { ownerKey: addition.ownerKey, verb: addition.verb, targetId: addition.targetId, windowStart };
}

async function remove(store: TrayStore, sourceKey: string, at: number): Promise<ChangedRecord | null> {
  const contribution = await store.findContribution(sourceKey);
  if (!contribution) return null;
  const record = await store.findRecordById(contribution.record_id);
  // A record older than its 10-day window is left unchanged (docs/contract.md, States and transitions).
  if (!record || at - record.window_start > TRAY_WINDOW_MS) return null;
  await store.deleteContribution(sourceKey);
  const remaining = await store.latestContributionOf(record.id, contribution.actor_id);
  if (remaining) {
    await store.updateActor(record.id, contribution.actor_id, { last_at: remaining.at, name: remaining.name, avatar_id: remaining.avatar_id });
  } else {
    await store.deleteActor(record.id, contribution.actor_id);
    await store.addToActorsCount(record.id, -1);
  }
  await refreshRecord(store, record.id);
  return { ownerKey: record.owner_key, verb: record.verb, targetId: record.target_id, windowStart: record.window_start };
}

const SOCIAL_EVENTS: ReadonlySet<SocialEventType> = new Set(SOCIAL_EVENT_TYPES);

/**
 * The tray's durable consumer: turns social events into tray state inside the consumer's
 * transaction, so each event takes effect exactly once (events/consumers.ts). Other events are
 * passed over.
 */
export async function applySocialEvents(trx: Executor, events: readonly OutboxEvent[], now: number): Promise<void> {
  const store = createTrayStore(trx);
  const changed = new Map<string, ChangedRecord>();
  for (const event of events) {
    // The payload's shape is checked too: an outbox row outlives the code that wrote it.
    if (!isEventOf(event, SOCIAL_EVENTS) || !isSocialEventData(event.data)) continue;
    const addition = additionOf(event.type, event.data);
    const removal = addition ? null : removalOf(event.type, event.data);
    const record = addition ? await add(store, addition, event.data, now) : removal ? await remove(store, removal, event.data.at) : null;
    if (record?.ownerKey.startsWith(USER_OWNER)) changed.set(`${record.ownerKey} ${record.verb} ${record.targetId} ${record.windowStart}`, record);
  }
  // The owner's open streams learn of it (`tray.updated`, docs/contract.md, Events), in this
  // transaction, so exactly once. A community's post records belong to every member: telling each
  // would be an event per member per post, so those are read from the history instead.
  await appendEvents(
    trx,
    [...changed.values()].map(
      (record): DomainEvent<'tray.updated'> => ({
        type: 'tray.updated',
        recipientId: record.ownerKey.slice(USER_OWNER.length),
        data: { verb: record.verb, targetId: record.targetId, targetGroup: String(record.windowStart) },
      }),
    ),
    now,
  );
}
