import { Card, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { type DailyFigures, dailyStatsQuery } from '../../api/stats.js';
import { BarChart } from '../../components/charts/BarChart.js';
import { ErrorNote } from '../../components/ErrorNote.js';

/** The charts' span, in UTC days up to today. */
const DAYS = 30;

interface ChartSpec {
  title: string;
  unit: string;
  value: (day: DailyFigures) => number;
}

const CHARTS: ChartSpec[] = [
  { title: 'Messages per day', unit: 'messages', value: (day) => day.messages },
  { title: 'Active users per day', unit: 'people', value: (day) => day.activeUsers },
  { title: 'Sign-ins per day', unit: 'sign-ins', value: (day) => day.signIns },
  { title: 'Flags per day', unit: 'flags', value: (day) => day.flags },
];

/** Messages, active users, sign-ins and flags per day over the last 30 days (GET /api/v2/stats/daily). */
export function ActivityCharts() {
  const daily = useQuery(dailyStatsQuery(DAYS));
  return (
    <Stack gap="xs" component="section" aria-labelledby="activity-heading">
      <Title order={2} size="h4" id="activity-heading">
        Last {DAYS} days
      </Title>
      <Text size="sm">Per UTC day: messages created (deleted ones included), people who sent a message, sign-ins and flags raised on messages and users.</Text>
      <ErrorNote error={daily.error} title="The daily figures did not load" />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        {CHARTS.map((chart) => (
          <Card key={chart.title} withBorder padding="md">
            <Title order={3} size="h5" mb="xs">
              {chart.title}
            </Title>
            {daily.data ? (
              <BarChart
                title={`${chart.title}, last ${DAYS} days`}
                unit={chart.unit}
                data={daily.data.days.map((day) => ({ label: day.date, value: chart.value(day) }))}
              />
            ) : (
              <Text size="sm">{daily.error ? 'No figures.' : 'Loading…'}</Text>
            )}
          </Card>
        ))}
      </SimpleGrid>
    </Stack>
  );
}
