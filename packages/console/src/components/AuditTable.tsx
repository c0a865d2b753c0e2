import { Text } from '@mantine/core';
import { api, call } from '../api/client.js';
import type { AuditEntry } from '../api/types.js';
import { PagedTable, useKeysetPages } from './PagedTable.js';
import { formatTime } from './time.js';

/** The audit trail (GET /api/v2/audit), newest first, optionally only the actions naming `target`. */
export function AuditTable({ caption, target, limit = 20 }: { caption: string; target?: string; limit?: number }) {
  const pages = useKeysetPages<AuditEntry>(['audit', target ?? null, limit], async (pageToken) => {
    const query: { limit: number; target?: string; pageToken?: string } = { limit };
    if (target !== undefined) query.target = target;
    if (pageToken !== null) query.pageToken = pageToken;
    const answer = await call(api.GET('/api/v2/audit', { params: { query } }));
    return { items: answer.entries, next: answer.paging.next };
  });
  return (
    <PagedTable
      caption={caption}
      pages={pages}
      rowKey={(entry) => entry.id}
      empty="No administrative actions recorded."
      columns={[
        { header: 'When', cell: (entry) => formatTime(entry.at) },
        { header: 'Who', cell: (entry) => `${entry.actor.name} (${entry.actor.type})` },
        { header: 'Action', cell: (entry) => entry.operation },
        { header: 'Targets', cell: (entry) => entry.targets.map((item) => item.id).join(', ') },
        {
          header: 'Result',
          cell: (entry) => (
            <Text size="sm" c={entry.success ? 'green.8' : 'red.8'} fw={600} style={{ whiteSpace: 'nowrap' }}>
              {entry.success ? 'done' : `refused (${entry.status})`}
            </Text>
          ),
        },
      ]}
    />
  );
}
