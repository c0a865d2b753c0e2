import { createHash } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../shared/schemas.js';

import { describeRecord, isTrayVerb, TRAY_VERBS } from './tray.describe.js';
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

/** Times in the tray are milliseconds since the epoch, as the original's clients read them. */
const EpochMs = (description: string) => Type.Integer({ description });

const TRAY_RECORD_EXAMPLE = {
  description: 'Sara Janes likes your post in Noomers over 50',
  networkId: 'acme',
  userId: 'alice',
  verb: 'like',
  targetId: '67d3f5a5e4b0a1c2d3e4f550',
  targetGroup: '1741802651402',
  targetType: 'post',
  imageUrl: 'https://chat.example.com/file/view/67d3f5a5e4b0a1c2d3e4f521?size=large',
  hasRead: false,
  lastUpdate: 1741802663640,
  actors: [{ id: 'sara', name: 'Sara Janes' }],
  actorsCount: 1,
} as const;

export const TrayRecord = Type.Object(
  {
    description: Type.String({ description: 'The sentence to show, e.g. "John Doe, Sara Janes and 10 others posted in Summer Collection"' }),
    networkId: Type.String(),
    userId: Type.String({ description: 'The reader: whose tray this is' }),
    verb: StringEnum(TRAY_VERBS, "'post' (someone posted in a community of the reader), 'comment' or 'like' (on the reader's post)"),
    targetId: Type.String({ description: 'The community of a post record; the post of a comment or like record' }),
    targetGroup: Type.String({ description: "The record's 10-day window: its start in ms, as a string" }),
    targetType: Type.String({ description: "'community' or 'post'" }),
    imageUrl: Type.String({ description: "The latest actor's avatar (large); '' when they have none" }),
    hasRead: Type.Boolean({ description: 'Whether the reader marked the record read since its lastUpdate' }),
    lastUpdate: EpochMs('The latest activity the reader sees, ms; unique within the tray, so it pages with searchAfter'),
    actors: Type.Array(Type.Object({ id: Type.String(), name: Type.String() }), { maxItems: 3, description: 'At most 3, latest first' }),
    actorsCount: Type.Integer({ description: 'Distinct actors in the record' }),
  },
  { description: 'A notification tray record (docs/contract.md, Tray wire format)', examples: [TRAY_RECORD_EXAMPLE] },
);
export type TrayRecord = Static<typeof TrayRecord>;

export const TrayHistoryRecord = Type.Object(
  {
    data: Type.Array(TrayRecord, { description: 'Latest first' }),
    lastRecordDate: Nullable(
      EpochMs("The lastUpdate of the page's last record"),
      "The next page's searchAfter: the lastUpdate of this page's last record; null when no page follows",
    ),
    lastRead: Type.Object({
      ch_uid: Type.String({ description: "An opaque, stable id of the reader's tray" }),
      netid_uid: Type.String({ description: '<networkId>_<userId>' }),
      lastReadDate: Nullable(
        EpochMs('When the reader last marked the whole tray read, ms'),
        'When the reader last marked the whole tray read (ms); null if never',
      ),
    }),
  },
  {
    description: 'One page of the notification tray (docs/contract.md, Tray wire format)',
    examples: [
      {
        data: [TRAY_RECORD_EXAMPLE],
        lastRecordDate: null,
        lastRead: { ch_uid: '5f1c0e9a2b7d4c3e8a6f0b12', netid_uid: 'acme_alice', lastReadDate: 1741700000000 },
      },
    ],
  },
);
export type TrayHistoryRecord = Static<typeof TrayHistoryRecord>;

/** One record as docs/contract.md, Tray wire format, spells it. */
export function presentTrayRecord(view: RecordView, readerId: string, options: TrayPresentOptions): TrayRecord {
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

export function presentHistory(page: HistoryPage, readerId: string, options: TrayPresentOptions): TrayHistoryRecord {
  return {
    data: page.views.map((view) => presentTrayRecord(view, readerId, options)),
    lastRecordDate: page.lastRecordDate,
    lastRead: { ch_uid: trayIdOf(readerId), netid_uid: `${options.networkId}_${readerId}`, lastReadDate: page.lastReadDate },
  };
}
