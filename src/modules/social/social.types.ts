/** A stint of membership as the tray reads it: joinedAt < t < leftAt (leftAt null: still a member). */
export interface MembershipInterval {
  communityId: string;
  joinedAt: number;
  leftAt: number | null;
}
