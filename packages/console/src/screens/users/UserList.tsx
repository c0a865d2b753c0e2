import { Anchor, Badge, Group, SegmentedControl, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { Link } from 'wouter';
import type { AdminUser, UserFilter } from '../../api/types.js';
import { Page } from '../../components/Page.js';
import { PagedTable, useKeysetPages } from '../../components/PagedTable.js';
import { formatTime } from '../../components/time.js';
import { userListPages } from './api.js';
import { CreateUser } from './CreateUser.js';

const EMPTY: Record<UserFilter, string> = { all: 'No users.', flagged: 'No flagged users.', banned: 'No user is banned globally.' };

function UserStatus({ user }: { user: AdminUser }) {
  return (
    <Group gap={4}>
      {user.isGlobalBan && (
        <Badge color="red" variant="filled" size="sm">
          Banned
        </Badge>
      )}
      {user.flagCount > 0 && (
        <Badge color="orange" variant="light" size="sm">
          {user.flagCount} {user.flagCount === 1 ? 'flag' : 'flags'}
        </Badge>
      )}
    </Group>
  );
}

/** Users, searched by the start of their id or display name, optionally only the flagged or the globally banned ones. */
export function UserList() {
  const [search, setSearch] = useState('');
  const [filter, setFilter] = useState<UserFilter>('all');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const pages = useKeysetPages(userListPages(debounced, filter));

  return (
    <Page title="Users" actions={<CreateUser />}>
      <Group align="flex-end" gap="sm" wrap="wrap">
        <TextInput
          label="Search users"
          description="The start of a user id or display name"
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          maxLength={100}
          w={280}
          type="search"
        />
        <SegmentedControl
          aria-label="Which users"
          value={filter}
          onChange={(value) => setFilter(value as UserFilter)}
          data={[
            { value: 'all', label: 'All' },
            { value: 'flagged', label: 'Flagged' },
            { value: 'banned', label: 'Banned' },
          ]}
        />
      </Group>
      <PagedTable
        caption="Users"
        pages={pages}
        rowKey={(user) => user.userId}
        empty={debounced === '' ? EMPTY[filter] : `No ${filter === 'all' ? '' : `${filter} `}user starts with “${debounced}”.`}
        columns={[
          {
            header: 'User',
            cell: (user) => (
              <Anchor component={Link} href={`/users/${encodeURIComponent(user.userId)}`}>
                {user.userId}
              </Anchor>
            ),
          },
          { header: 'Display name', cell: (user) => user.displayName },
          { header: 'Roles', cell: (user) => user.roles.join(', ') },
          { header: 'Status', cell: (user) => <UserStatus user={user} /> },
          { header: 'Created', cell: (user) => formatTime(user.createdAt) },
        ]}
      />
    </Page>
  );
}
