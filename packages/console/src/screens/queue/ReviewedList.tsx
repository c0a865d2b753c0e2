import { Anchor, Text } from '@mantine/core';
import { Link } from 'wouter';
import type { Review } from '../../api/types.js';
import { PagedTable, useKeysetPages } from '../../components/PagedTable.js';
import { formatTime } from '../../components/time.js';
import { reviewsPages } from './api.js';
import { outcomeOf } from './outcome.js';

function Target({ review }: { review: Review }) {
  if (review.targetType === 'user') {
    return (
      <Anchor component={Link} href={`/users/${encodeURIComponent(review.targetId)}`} size="sm">
        {review.targetId}
      </Anchor>
    );
  }
  return (
    <Text size="sm" lineClamp={2} style={{ overflowWrap: 'anywhere' }}>
      {review.message ? `${review.message.userId}: ${review.message.text ?? '(no text)'}` : review.targetId}
      {review.channelId ? ` (in ${review.channelId})` : ''}
    </Text>
  );
}

/** Decisions already taken, newest first (GET /api/v2/moderation/reviews). */
export function ReviewedList({ targetType }: { targetType: 'message' | 'user' }) {
  const pages = useKeysetPages(reviewsPages(targetType));
  return (
    <PagedTable
      caption={targetType === 'message' ? 'Reviewed messages' : 'Reviewed users'}
      rowKey={(review) => review.reviewId}
      pages={pages}
      empty="No decisions yet."
      columns={[
        { header: 'When', cell: (review) => formatTime(review.createdAt) },
        { header: targetType === 'message' ? 'Message' : 'User', cell: (review) => <Target review={review} /> },
        { header: 'Flags', cell: (review) => review.flags.length },
        { header: 'Decision', cell: (review) => outcomeOf(review) },
        { header: 'Note', cell: (review) => review.note ?? '' },
        { header: 'By', cell: (review) => (review.reviewer.kind === 'adminToken' ? `admin token ${review.reviewer.id}` : review.reviewer.id) },
      ]}
    />
  );
}
