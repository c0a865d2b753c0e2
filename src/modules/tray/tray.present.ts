import { createHash } from 'node:crypto';
import { describeRecord, isTrayVerb } from './tray.describe.js';
import type { HistoryPage, RecordView } from './tray.service.js';

export interface TrayPresentOptions {
  /** The record's networkId (PARLEY_NETWORK_ID). */
  networkId: string;
  /** Base of avatar links: `${publicUrl}/file/view/<avatarId>?size=large`. */
  publicUrl: string;
}

/** A stable, opaque id of a user's tray (lastRead.ch_uid): 24 hex characters, like the original's ids. */
export function trayIdOf(userId: string): string {
  return createHash('sha256').update(`tray:${userId}`, 'utf8').digest('hex').slice(0, 24);
}

/** One record as API-CONVENTIONS.md section 5 spells it. */
export function presentTrayRecord(view: RecordView, readerId: string, options: TrayPresentOptions) {
  const { record } = view;
  const verb = isTrayVerb(record.verb) ? record.verb : 'post';
  const avatarId = view.actors[0]?.avatarId ?? null;
  return {
    description: describeRecord({ verb, names: view.actors.map((actor) => actor.name), actorsCount: view.actorsCount, communityName: record.community_name }),
    networkId: options.networkId,
    userId: readerId,
    verb,
    targetId: record.target_id,
    targetGroup: String(record.window_start),
    targetType: record.target_type,
    imageUrl: avatarId ? `${options.publicUrl}/file/view/${encodeURIComponent(avatarId)}?size=large` : '',
    hasRead: view.hasRead,
    lastUpdate: view.lastUpdate,
    actors: view.actors.map((actor) => ({ id: actor.id, name: actor.name })),
    actorsCount: view.actorsCount,
  };
}

export function presentHistory(page: HistoryPage, readerId: string, options: TrayPresentOptions) {
  return {
    data: page.views.map((view) => presentTrayRecord(view, readerId, options)),
    lastRecordDate: page.lastRecordDate,
    lastRead: { ch_uid: trayIdOf(readerId), netid_uid: `${options.networkId}_${readerId}`, lastReadDate: page.lastReadDate },
  };
}

export type TrayRecord = ReturnType<typeof presentTrayRecord>;
