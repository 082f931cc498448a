/**
 * Server-rendered SVG bar charts of hourly buckets (features/history/buckets.ts): one bar
 * per UTC clock hour of the window, hours without events drawn as zero, so a quiet night is
 * visible as such rather than averaged away.
 */
import { HOUR_MS, hourOf, type HourBucket } from '../history/buckets.ts';

export interface HourSeries {
  /** start of each hour of the window, oldest first */
  hours: number[];
  values: number[];
}

/** One value per clock hour from `sinceMs` to `untilMs` (both hours included), zero where no bucket. */
export function hourSeries(buckets: readonly HourBucket[], sinceMs: number, untilMs: number, value: (b: HourBucket) => number): HourSeries {
  const byHour = new Map(buckets.map((b) => [b.hour, b]));
  const hours: number[] = [];
  const values: number[] = [];
  for (let h = hourOf(sinceMs); h <= untilMs; h += HOUR_MS) {
    hours.push(h);
    const b = byHour.get(h);
    values.push(b ? value(b) : 0);
  }
  return { hours, values };
}

const WIDTH = 400;
const HEIGHT = 120;
const PAD = 24;

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** An SVG bar chart; each bar carries a <title> (hour and value) for a hover. */
export function barChart(series: HourSeries, label: string): string {
  const n = series.values.length;
  const max = Math.max(1, ...series.values);
  const total = series.values.reduce((a, b) => a + b, 0);
  const w = (WIDTH - PAD) / Math.max(1, n);
  const bars: string[] = [];
  for (let i = 0; i < n; i++) {
    const v = series.values[i]!;
    if (v <= 0) continue;
    const h = Math.max(1, ((HEIGHT - PAD) * v) / max);
    const hour = new Date(series.hours[i]!).toISOString().slice(0, 13).replace('T', ' ');
    bars.push(`<rect x="${(PAD + i * w).toFixed(2)}" y="${(HEIGHT - PAD / 2 - h).toFixed(2)}" width="${Math.max(0.5, w - 0.5).toFixed(2)}" height="${h.toFixed(2)}" fill="#1f6fd1"><title>${esc(`${hour}:00 UTC: ${v}`)}</title></rect>`);
  }
  const first = series.hours[0] === undefined ? '' : new Date(series.hours[0]).toISOString().slice(5, 13).replace('T', ' ');
  const last = series.hours.at(-1) === undefined ? '' : new Date(series.hours.at(-1)!).toISOString().slice(5, 13).replace('T', ' ');
  return `<svg class="chart" role="img" aria-label="${esc(`${label}: ${total} in ${n} hours`)}" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" data-hours="${n}" data-total="${total}">`
    + `<text x="${PAD}" y="11" font-size="11" fill="#334">${esc(label)} (max ${max}/h, total ${total})</text>`
    + `<line x1="${PAD}" y1="${HEIGHT - PAD / 2}" x2="${WIDTH}" y2="${HEIGHT - PAD / 2}" stroke="#99a"/>`
    + bars.join('')
    + `<text x="${PAD}" y="${HEIGHT - 1}" font-size="10" fill="#667">${esc(first)}h</text>`
    + `<text x="${WIDTH - 2}" y="${HEIGHT - 1}" font-size="10" fill="#667" text-anchor="end">${esc(last)}h UTC</text>`
    + `</svg>`;
}
