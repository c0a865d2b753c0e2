import { Alert, Button, Center, Checkbox, Group, List, Loader, Modal, Progress, Stack, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { messageOf } from '../../api/errors.js';
import type { FlaggedMessage, Review } from '../../api/types.js';
import { useSession } from '../../auth/session.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { useKeysetPages } from '../../components/useKeysetPages.js';
import { filteredOpenMessagesPages, type OpenMessageFilters, queueKeys, reviewMessage } from './api.js';
import { DecisionNote } from './DecisionNote.js';
import { FlaggedMessageCard } from './FlaggedMessageCard.js';

const NO_FILTERS: OpenMessageFilters = { channelId: '', reporter: '', reason: '' };

type Decision = 'dismiss' | 'delete';

interface BulkRun {
  decision: Decision;
  total: number;
  done: number;
  failures: Array<{ messageId: string; message: string }>;
  finished: boolean;
}

/** The bulk decision's dialog: the note, then the run with its progress and the failures. */
function BulkDialog({
  decision,
  messageIds,
  onClose,
  onDecided,
}: {
  decision: Decision;
  messageIds: string[];
  onClose: () => void;
  onDecided: (messageId: string, review: Review) => void;
}) {
  const [note, setNote] = useState('');
  const [run, setRun] = useState<BulkRun | null>(null);
  const queryClient = useQueryClient();
  const verb = decision === 'dismiss' ? 'Dismiss' : 'Delete';

  const start = async () => {
    const trimmed = note.trim();
    const state: BulkRun = { decision, total: messageIds.length, done: 0, failures: [], finished: false };
    setRun({ ...state });
    // One at a time: each review is its own decision, with its own audit entry and refusal.
    for (const messageId of messageIds) {
      try {
        const { review } = await reviewMessage(messageId, trimmed === '' ? { decision } : { decision, note: trimmed });
        onDecided(messageId, review);
      } catch (error) {
        state.failures.push({ messageId, message: messageOf(error) });
      }
      state.done += 1;
      setRun({ ...state, failures: [...state.failures] });
    }
    state.finished = true;
    setRun({ ...state, failures: [...state.failures] });
    await queryClient.invalidateQueries({ queryKey: queueKeys.all });
  };

  const running = run !== null && !run.finished;
  return (
    <Modal
      opened
      onClose={() => !running && onClose()}
      title={`${verb} ${messageIds.length} selected ${messageIds.length === 1 ? 'message' : 'messages'}`}
      centered
    >
      <Stack>
        {run === null ? (
          <>
            <Text size="sm">
              {decision === 'dismiss' ? 'Their flags are closed and the messages stay.' : 'The messages are deleted for everyone and their flags are closed.'}
            </Text>
            <DecisionNote value={note} onChange={setNote} />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button color={decision === 'delete' ? 'red' : undefined} onClick={() => void start()}>
                {verb}
              </Button>
            </Group>
          </>
        ) : (
          <>
            <Text size="sm" role="status">{`${run.done} of ${run.total} done${run.failures.length > 0 ? `, ${run.failures.length} failed` : ''}`}</Text>
            <Progress value={(run.done / run.total) * 100} aria-label="Progress" />
            {run.finished && run.failures.length === 0 && (
              <Alert color="green" title="All done" role="status">
                {`${run.total} ${run.total === 1 ? 'message' : 'messages'}: ${decision === 'dismiss' ? 'flags dismissed' : 'deleted'}.`}
              </Alert>
            )}
            {run.failures.length > 0 && (
              <Alert color="red" title={`${run.failures.length} could not be decided`} role="alert">
                <List size="sm">
                  {run.failures.map((failure) => (
                    <List.Item key={failure.messageId}>{`${failure.messageId}: ${failure.message}`}</List.Item>
                  ))}
                </List>
              </Alert>
            )}
            <Group justify="flex-end">
              <Button onClick={onClose} disabled={running}>
                Done
              </Button>
            </Group>
          </>
        )}
      </Stack>
    </Modal>
  );
}

/**
 * The open flagged messages with filters (channel, reporter, reason), a checkbox per message, and
 * bulk dismiss and delete. Decided messages stay in place with their outcome until the screen is left.
 */
export function FilteredOpenMessages() {
  const { can } = useSession();
  const [draft, setDraft] = useState<OpenMessageFilters>(NO_FILTERS);
  const [filters, setFilters] = useState<OpenMessageFilters>(NO_FILTERS);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [decided, setDecided] = useState<Map<string, { item: FlaggedMessage; review: Review }>>(new Map());
  const [bulk, setBulk] = useState<{ decision: Decision; messageIds: string[] } | null>(null);
  const pages = useKeysetPages(filteredOpenMessagesPages(filters));

  const record = (item: FlaggedMessage, review: Review) => setDecided((current) => new Map(current).set(item.message.messageId, { item, review }));
  const live = pages.items.filter((item) => !decided.has(item.message.messageId));
  const entries: Array<{ item: FlaggedMessage; review: Review | undefined }> = [
    ...[...decided.values()].map(({ item, review }) => ({ item, review })),
    ...live.map((item) => ({ item, review: undefined })),
  ];
  const selectable = live.map((item) => item.message.messageId);
  const chosen = selectable.filter((id) => selected.has(id));
  const byId = new Map(pages.items.map((item) => [item.message.messageId, item]));
  const toggle = (messageId: string, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(messageId);
      else next.delete(messageId);
      return next;
    });

  return (
    <Stack gap="md">
      <form
        aria-label="Queue filters"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters(draft);
          setSelected(new Set());
        }}
      >
        <Group align="flex-end" gap="sm" wrap="wrap">
          {(
            [
              ['channelId', 'Channel id'],
              ['reporter', 'Reporter (user id)'],
              ['reason', 'Reason contains'],
            ] as const
          ).map(([key, label]) => (
            <TextInput
              key={key}
              label={label}
              value={draft[key]}
              onChange={(event) => {
                const { value } = event.currentTarget;
                setDraft((current) => ({ ...current, [key]: value }));
              }}
              maxLength={key === 'reason' ? 100 : 50}
              w={200}
            />
          ))}
          <Button type="submit">Filter</Button>
          <Button
            variant="subtle"
            onClick={() => {
              setDraft(NO_FILTERS);
              setFilters(NO_FILTERS);
              setSelected(new Set());
            }}
          >
            Clear
          </Button>
        </Group>
      </form>
      <Group gap="sm" wrap="wrap">
        <Checkbox
          label="Select all shown"
          checked={selectable.length > 0 && chosen.length === selectable.length}
          indeterminate={chosen.length > 0 && chosen.length < selectable.length}
          onChange={(event) => setSelected(event.currentTarget.checked ? new Set(selectable) : new Set())}
          disabled={selectable.length === 0}
        />
        <Text size="sm" c="dimmed">{`${chosen.length} selected`}</Text>
        <Button variant="default" size="xs" disabled={chosen.length === 0} onClick={() => setBulk({ decision: 'dismiss', messageIds: chosen })}>
          Dismiss selected
        </Button>
        {can('DELETE_MESSAGE') && (
          <Button color="red" variant="light" size="xs" disabled={chosen.length === 0} onClick={() => setBulk({ decision: 'delete', messageIds: chosen })}>
            Delete selected
          </Button>
        )}
      </Group>
      {pages.isLoading ? (
        <Center p="lg">
          <Loader aria-label="Loading the queue" />
        </Center>
      ) : (
        <>
          <ErrorNote error={pages.error} title="The queue could not be loaded" />
          {entries.length === 0 && !pages.error && <Text c="dimmed">Nothing to review. New flags appear here within a few seconds.</Text>}
          {entries.map(({ item, review }) => (
            <Stack key={item.message.messageId} gap={4}>
              {review === undefined && (
                <Checkbox
                  label={`Select the message by ${item.author.displayName || item.author.userId}`}
                  checked={selected.has(item.message.messageId)}
                  onChange={(event) => toggle(item.message.messageId, event.currentTarget.checked)}
                />
              )}
              <FlaggedMessageCard item={item} review={review} onDecided={(next) => record(item, next)} />
            </Stack>
          ))}
          {pages.hasMore && (
            <Button variant="default" onClick={pages.loadMore} loading={pages.isLoadingMore} style={{ alignSelf: 'flex-start' }}>
              Load more
            </Button>
          )}
        </>
      )}
      {bulk !== null && (
        <BulkDialog
          decision={bulk.decision}
          messageIds={bulk.messageIds}
          onClose={() => {
            setBulk(null);
            setSelected(new Set());
          }}
          onDecided={(messageId, review) => {
            const item = byId.get(messageId);
            if (item) record(item, review);
          }}
        />
      )}
    </Stack>
  );
}
