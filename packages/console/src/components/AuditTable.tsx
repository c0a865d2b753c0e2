import { Text } from '@mantine/core';
import { auditPages } from '../api/audit.js';
import { PagedTable, useKeysetPages } from './PagedTable.js';
import { formatTime } from './time.js';

/** The audit trail (GET /api/v2/audit), newest first, optionally only the actions naming `target`. */
export function AuditTable({ caption, target, limit = 20 }: { caption: string; target?: string; limit?: number }) {
  const pages = useKeysetPages(auditPages(target, limit));
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
            <Text size="sm" c={entry.success ? 'green' : 'red'} fw={600} style={{ whiteSpace: 'nowrap' }}>
              {entry.success ? 'done' : `refused (${entry.status})`}
            </Text>
          ),
        },
      ]}
    />
  );
}
