import { VisuallyHidden } from '@mantine/core';
import { useId } from 'react';

/** One bar: its label on the x axis (a day, 2025-03-14) and its value. */
export interface BarDatum {
  label: string;
  value: number;
}

/** The drawing's own units: about the width a chart gets in the Overview's grid, so 13-unit text reads at about 13 px. */
const WIDTH = 440;
const HEIGHT = 230;
const MARGIN = { top: 14, right: 10, bottom: 48, left: 54 };
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_HEIGHT = HEIGHT - MARGIN.top - MARGIN.bottom;

/**
 * Colours as Mantine's variables: bars in indigo 7 (4.9:1 on white, above the 3:1 WCAG AA asks of
 * graphics), text in the text colour, axes in gray 7 (8:1); the grid lines are decoration.
 */
const BAR = 'var(--mantine-color-indigo-7)';
const AXIS = 'var(--mantine-color-gray-7)';
const GRID = 'var(--mantine-color-gray-3)';

/** The step of the y axis: 1, 2 or 5 times a power of ten, so that about four steps reach `max`. */
function stepFor(max: number): number {
  const rough = Math.max(1, max / 4);
  const power = 10 ** Math.floor(Math.log10(rough));
  const factor = [1, 2, 5, 10].find((candidate) => candidate * power >= rough) ?? 10;
  return factor * power;
}

/** The y axis' ticks, from 0 to the first step at or above `max`. */
export function ticksFor(max: number): number[] {
  const step = stepFor(max);
  const top = Math.max(step, Math.ceil(max / step) * step);
  return Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step);
}

/** 2025-03-14 as "Mar 14", read in UTC like the day it names. */
export function shortDay(date: string): string {
  const at = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(at.getTime()) ? date : at.toLocaleDateString('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

const formatNumber = (value: number) => value.toLocaleString('en');

/** Where a day's label goes under its bar: the first starts at it and the last ends at it, so neither leaves the drawing. */
function dayLabelPlace(index: number, count: number, x: number, barWidth: number): { x: number; textAnchor: 'start' | 'middle' | 'end' } {
  if (count > 1 && index === 0) return { x, textAnchor: 'start' };
  if (count > 1 && index === count - 1) return { x: x + barWidth, textAnchor: 'end' };
  return { x: x + barWidth / 2, textAnchor: 'middle' };
}

/**
 * A bar chart of values per day as plain SVG: an image named by `title`, described by a sentence
 * (range, total, highest day), with both axes labelled; every value is also in a visually hidden
 * table, for screen readers and for anyone who reads numbers rather than bars.
 */
export function BarChart({ title, data, unit, xLabel = 'Day (UTC)' }: { title: string; data: BarDatum[]; unit: string; xLabel?: string }) {
  const id = useId();
  const titleId = `${id}-title`;
  const descriptionId = `${id}-description`;
  const ticks = ticksFor(Math.max(0, ...data.map((datum) => datum.value)));
  const top = ticks.at(-1) ?? 1;
  const slot = PLOT_WIDTH / Math.max(1, data.length);
  const barWidth = Math.max(1, slot * 0.7);
  const y = (value: number) => MARGIN.top + PLOT_HEIGHT - (value / top) * PLOT_HEIGHT;
  const total = data.reduce((sum, datum) => sum + datum.value, 0);
  const highest = data.reduce<BarDatum | null>((best, datum) => (best === null || datum.value > best.value ? datum : best), null);
  const first = data[0];
  const last = data.at(-1);
  const description =
    first === undefined || last === undefined
      ? 'No days to show.'
      : `${data.length} days from ${shortDay(first.label)} to ${shortDay(last.label)}: ${formatNumber(total)} ${unit} in all` +
        (highest !== null && highest.value > 0 ? `, most on ${shortDay(highest.label)} (${formatNumber(highest.value)}).` : '.');
  // Labels under the first, middle and last bars: enough to read the dates without crowding.
  const labelled = new Set([0, Math.floor((data.length - 1) / 2), data.length - 1]);

  return (
    <figure style={{ margin: 0 }}>
      <svg
        role="img"
        aria-labelledby={titleId}
        aria-describedby={descriptionId}
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        width="100%"
        style={{ display: 'block', height: 'auto', maxHeight: 320 }}
        fontSize={13}
        fill="currentColor"
      >
        <title id={titleId}>{title}</title>
        <desc id={descriptionId}>{description}</desc>
        {ticks.map((tick) => (
          <g key={tick}>
            <line x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={y(tick)} y2={y(tick)} stroke={tick === 0 ? AXIS : GRID} strokeWidth={1} />
            <text x={MARGIN.left - 6} y={y(tick)} textAnchor="end" dominantBaseline="middle">
              {formatNumber(tick)}
            </text>
          </g>
        ))}
        <line x1={MARGIN.left} x2={MARGIN.left} y1={MARGIN.top} y2={MARGIN.top + PLOT_HEIGHT} stroke={AXIS} strokeWidth={1} />
        {data.map((datum, index) => {
          const x = MARGIN.left + index * slot + (slot - barWidth) / 2;
          const height = MARGIN.top + PLOT_HEIGHT - y(datum.value);
          return (
            <g key={datum.label}>
              <rect x={x} y={y(datum.value)} width={barWidth} height={height} fill={BAR}>
                <title>{`${shortDay(datum.label)}: ${formatNumber(datum.value)} ${unit}`}</title>
              </rect>
              {labelled.has(index) && (
                <text {...dayLabelPlace(index, data.length, x, barWidth)} y={MARGIN.top + PLOT_HEIGHT + 18}>
                  {shortDay(datum.label)}
                </text>
              )}
            </g>
          );
        })}
        <text x={MARGIN.left + PLOT_WIDTH / 2} y={HEIGHT - 6} textAnchor="middle">
          {xLabel}
        </text>
        <text transform={`translate(14 ${MARGIN.top + PLOT_HEIGHT / 2}) rotate(-90)`} textAnchor="middle">
          {unit.charAt(0).toUpperCase() + unit.slice(1)}
        </text>
      </svg>
      <VisuallyHidden>
        <table>
          <caption>{`${title}, per day`}</caption>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col">{unit.charAt(0).toUpperCase() + unit.slice(1)}</th>
            </tr>
          </thead>
          <tbody>
            {data.map((datum) => (
              <tr key={datum.label}>
                <th scope="row">{datum.label}</th>
                <td>{datum.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </VisuallyHidden>
    </figure>
  );
}
