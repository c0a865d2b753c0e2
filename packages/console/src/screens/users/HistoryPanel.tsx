import { Anchor, Stack, Text, Title } from '@mantine/core';
import { Link } from 'wouter';
import { useSession } from '../../auth/session.js';
import { AuditTable } from '../../components/AuditTable.js';
import { PagedTable, useKeysetPages } from '../../components/PagedTable.js';
import { formatTime } from '../../components/time.js';
import { RecentMessages } from './RecentMessages.js';
import { userFlagsPages } from './api.js';

/** Who flagged the user and why (GET /api/v2/users/{userId}/flags); a review or "Clear flags" empties it. */
function FlagsReceived({ userId }: { userId: string }) {
  const pages = useKeysetPages(userFlagsPages(userId));
  return (
    <PagedTable
      caption="Flags this user received"
      pages={pages}
      rowKey={(flag) => flag.flagger.userId}
      empty="No open flags."
      columns={[
        { header: 'When', cell: (flag) => formatTime(flag.createdAt) },
        {
          header: 'Flagged by',
          cell: (flag) => (
            <Anchor component={Link} href={`/users/${encodeURIComponent(flag.flagger.userId)}`}>
              {flag.flagger.displayName || flag.flagger.userId}
            </Anchor>
          ),
        },
        {
          header: 'Reason',
          cell: (flag) =>
            flag.reason === null ? (
              <Text size="sm" c="dimmed">
                none given
              </Text>
            ) : (
              <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                {flag.reason}
              </Text>
            ),
        },
      ]}
    />
  );
}

/** What the user wrote and the flags others raised on them; for network admins, their tray and what administrators did to them. */
export function HistoryPanel({ userId }: { userId: string }) {
  const { isNetworkAdmin } = useSession();
  return (
    <Stack gap="lg">
      <Title order={2} size="h4">
        History
      </Title>
      <RecentMessages userId={userId} />
      <FlagsReceived userId={userId} />
      {isNetworkAdmin && (
        <>
          <Text size="sm">
            <Anchor component={Link} href={`/tray?userId=${encodeURIComponent(userId)}`}>
              Open their notification tray in the tray inspector
            </Anchor>
          </Text>
          <AuditTable caption="Administrative actions naming this user" target={userId} limit={10} />
        </>
      )}
    </Stack>
  );
}
