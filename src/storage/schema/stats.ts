/** Daily statistics (modules/stats): counters per UTC day, and the senders that keep `active_users` distinct. */

export interface DailyStatsTable {
  /** Days since 1970-01-01, UTC. */
  utc_day: number;
  /** 'messages', 'active_users', 'sign_ins', 'message_flags' or 'user_flags'. */
  metric: string;
  count: number;
}

export interface DailySendersTable {
  utc_day: number;
  /** A person who sent a message that day (bots are left out). */
  user_id: string;
}
