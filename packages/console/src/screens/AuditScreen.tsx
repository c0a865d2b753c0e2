import { Alert, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { Page } from '../components/Page.js';
import { PagedTable, useKeysetPages } from '../components/PagedTable.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { formatTime } from '../components/time.js';
import { type AuditFilters, EXPORT_LIMIT, exportAudit, filteredAuditPages, NO_AUDIT_FILTERS } from './audit/api.js';
import { download } from './audit/csv.js';

const FIELDS: Array<{ key: keyof AuditFilters; label: string; description: string; type?: string }> = [
  { key: 'actor', label: 'Actor', description: "An admin token's name, a user id, or cli" },
  { key: 'target', label: 'Target', description: 'An id the action named' },
  { key: 'operation', label: 'Operation', description: 'e.g. channel.close, user.ban' },
  { key: 'from', label: 'From', description: 'At or after, your time', type: 'datetime-local' },
  { key: 'to', label: 'To', description: 'Before, your time', type: 'datetime-local' },
];

type ExportState = { kind: 'idle' } | { kind: 'running'; read: number } | { kind: 'done'; rows: number; cut: boolean } | { kind: 'failed'; error: unknown };

/** The audit trail: every administrative action, filtered by actor, target, operation and time, paged, and exported as CSV. */
export function AuditScreen() {
  const [draft, setDraft] = useState<AuditFilters>(NO_AUDIT_FILTERS);
  const [filters, setFilters] = useState<AuditFilters>(NO_AUDIT_FILTERS);
  const [exporting, setExporting] = useState<ExportState>({ kind: 'idle' });
  const pages = useKeysetPages(filteredAuditPages(filters));

  const runExport = async () => {
    setExporting({ kind: 'running', read: 0 });
    try {
      const { csv, rows, cut } = await exportAudit(filters, (read) => setExporting({ kind: 'running', read }));
      download(`parley-audit-${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}.csv`, csv);
      setExporting({ kind: 'done', rows, cut });
    } catch (error) {
      setExporting({ kind: 'failed', error });
    }
  };

  return (
    <Page
      title="Audit trail"
      actions={
        <Button variant="default" onClick={() => void runExport()} loading={exporting.kind === 'running'}>
          Export CSV
        </Button>
      }
    >
      <form
        aria-label="Audit filters"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters(draft);
        }}
      >
        <Group align="flex-end" gap="sm" wrap="wrap">
          {FIELDS.map((field) => (
            <TextInput
              key={field.key}
              label={field.label}
              description={field.description}
              type={field.type ?? 'text'}
              value={draft[field.key]}
              onChange={(event) => {
                const { value } = event.currentTarget;
                setDraft((current) => ({ ...current, [field.key]: value }));
              }}
              maxLength={160}
              w={field.type ? 220 : 200}
            />
          ))}
          <Button type="submit">Apply filters</Button>
          <Button
            variant="subtle"
            onClick={() => {
              setDraft(NO_AUDIT_FILTERS);
              setFilters(NO_AUDIT_FILTERS);
            }}
          >
            Clear
          </Button>
        </Group>
      </form>
      <Stack gap={4}>
        {exporting.kind === 'running' && (
          <Text size="sm" role="status">
            {`Exporting: ${exporting.read} entries read…`}
          </Text>
        )}
        {exporting.kind === 'done' && (
          <Alert color={exporting.cut ? 'orange' : 'green'} role="status" title="Export ready">
            {exporting.cut
              ? `The export holds the newest ${exporting.rows} entries: more match these filters. Narrow the time range to export the rest.`
              : `The export holds all ${exporting.rows} matching entries.`}
          </Alert>
        )}
        {exporting.kind === 'failed' && <ErrorNote error={exporting.error} title="The export failed" />}
        <Text size="xs" c="dimmed">{`An export holds at most ${EXPORT_LIMIT.toLocaleString('en')} entries, newest first, with the filters applied.`}</Text>
      </Stack>
      <PagedTable
        caption="Audit entries"
        pages={pages}
        rowKey={(entry) => entry.id}
        empty="No administrative action matches these filters."
        columns={[
          { header: 'When', cell: (entry) => formatTime(entry.at) },
          { header: 'Who', cell: (entry) => `${entry.actor.name} (${entry.actor.type})` },
          { header: 'Operation', cell: (entry) => entry.operation },
          { header: 'Targets', cell: (entry) => entry.targets.map((item) => item.id).join(', ') },
          {
            header: 'Result',
            cell: (entry) => (
              <Text size="sm" c={entry.success ? 'green' : 'red'} fw={600} style={{ whiteSpace: 'nowrap' }}>
                {entry.success ? 'done' : `refused (${entry.status}${entry.errorCode === null ? '' : `, ${entry.errorCode}`})`}
              </Text>
            ),
          },
          { header: 'Request id', cell: (entry) => entry.requestId ?? '—' },
        ]}
      />
    </Page>
  );
}
