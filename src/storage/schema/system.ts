import type { Generated } from 'kysely';

/** The outbox of domain events, its consumers' positions, and settings made once per database. */

export interface OutboxTable {
  id: Generated<number>;
  type: string;
  channel_id: string | null;
  user_id: string | null;
  /** The one user an event is for (tray updates), beside or instead of a channel's members. */
  recipient_id: string | null;
  /** JSON of the event's data, shaped by the module's presenter at write time. */
  payload: string;
  created_at: number;
}

export interface OutboxConsumersTable {
  name: string;
  last_id: number;
  updated_at: number;
}

export interface SettingsTable {
  key: string;
  value: string;
}
