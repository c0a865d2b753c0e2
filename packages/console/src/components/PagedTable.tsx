import { Button, Center, Loader, Stack, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { ErrorNote } from './ErrorNote.js';
import type { KeysetPages } from './useKeysetPages.js';

export { type KeysetPage, type KeysetPages, useKeysetPages } from './useKeysetPages.js';

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
}

export interface PagedTableProps<T> {
  /** The table's caption, also its accessible name. */
  caption: string;
  columns: Array<Column<T>>;
  rowKey: (row: T) => string;
  pages: KeysetPages<T>;
  /** Shown when the list is empty. */
  empty?: string;
}

/** A table of a keyset-paged list with a "Load more" button while `paging.next` has a token. */
export function PagedTable<T>({ caption, columns, rowKey, pages, empty = 'Nothing here.' }: PagedTableProps<T>) {
  if (pages.isLoading) {
    return (
      <Center p="lg">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  return (
    <Stack gap="sm">
      <ErrorNote error={pages.error} />
      <Table.ScrollContainer minWidth={560}>
        <Table striped highlightOnHover captionSide="top">
          <Table.Caption ta="left" fw={600}>
            {caption}
          </Table.Caption>
          <Table.Thead>
            <Table.Tr>
              {columns.map((column) => (
                <Table.Th key={column.header}>{column.header}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {pages.items.map((row) => (
              <Table.Tr key={rowKey(row)}>
                {columns.map((column) => (
                  <Table.Td key={column.header}>{column.cell(row)}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {pages.items.length === 0 && !pages.error && <Text c="dimmed">{empty}</Text>}
      {pages.hasMore && (
        <Button variant="default" onClick={pages.loadMore} loading={pages.isLoadingMore} style={{ alignSelf: 'flex-start' }}>
          Load more
        </Button>
      )}
    </Stack>
  );
}
