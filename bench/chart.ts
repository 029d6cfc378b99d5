/**
 * The picture beside a run's JSON: objects Ready over time after the last apply, one panel per N with the
 * share of its N objects Ready, and its ideal as a dashed line (no object Ready before one revision's
 * walk, then Ready at the workers' full rate until all N are, at the ideal time). Plain SVG, no
 * dependency.
 */
export interface ChartSeries {
  n: number;
  /** When each object turned Ready, in ms after the last apply (negative: before it). */
  readyMs: readonly number[];
  idealMs: number;
  /** The ideal's first Ready: one revision's walk after the apply. */
  idealFirstReadyMs: number;
}

const PANEL_WIDTH = 340;
const PANEL_HEIGHT = 300;
const MARGIN = { left: 60, right: 20, top: 70, bottom: 64 };
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e'];

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** At most this many points per curve: a 10,000-object run stays a small file. */
const MAX_POINTS = 400;

function curve(readyMs: readonly number[]): [number, number][] {
  const sorted = [...readyMs].map((t) => Math.max(0, t)).sort((a, b) => a - b);
  const step = Math.max(1, Math.ceil(sorted.length / MAX_POINTS));
  const points: [number, number][] = [[0, 0]];
  for (let i = 0; i < sorted.length; i += step) points.push([sorted[i] as number, (i + 1) / sorted.length]);
  if (sorted.length > 0) points.push([sorted[sorted.length - 1] as number, 1]);
  return points;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** One N's panel at horizontal offset `left`: its own time axis, the measured curve and the ideal. */
function panel(s: ChartSeries, index: number, left: number, done: string): string {
  const colour = COLOURS[index % COLOURS.length];
  const allReadyMs = Math.max(0, ...s.readyMs);
  const maxMs = Math.max(1, allReadyMs, s.idealMs);
  const plotW = PANEL_WIDTH - MARGIN.left - MARGIN.right;
  const plotH = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const x0 = left + MARGIN.left;
  const x = (ms: number) => (x0 + (ms / maxMs) * plotW).toFixed(1);
  const y = (share: number) => (MARGIN.top + (1 - share) * plotH).toFixed(1);
  const path = (points: readonly [number, number][]) =>
    points.map(([ms, share], i) => `${i === 0 ? 'M' : 'L'}${x(ms)},${y(share)}`).join(' ');
  const ideal: [number, number][] = [
    [0, 0],
    [s.idealFirstReadyMs, 0],
    [s.idealMs, 1],
  ];
  const ratio = s.idealMs > 0 ? ` (${(allReadyMs / s.idealMs).toFixed(2)}× ideal)` : '';
  const ticks = [0, 0.5, 1].map(
    (f) =>
      `<text x="${x(f * maxMs)}" y="${Number(y(0)) + 16}" text-anchor="middle" font-size="11">${seconds(f * maxMs)}</text>`,
  );
  const shares = [0, 0.5, 1].map(
    (share) =>
      `<text x="${x0 - 6}" y="${Number(y(share)) + 4}" text-anchor="end" font-size="11">${share * 100}%</text>` +
      `<line x1="${x0}" y1="${y(share)}" x2="${x0 + plotW}" y2="${y(share)}" stroke="#ddd"/>`,
  );
  const legendY = PANEL_HEIGHT - 18;
  return [
    `<text x="${x0}" y="${MARGIN.top - 22}" font-size="13" font-weight="bold">N=${s.n}</text>`,
    `<text x="${x0}" y="${MARGIN.top - 8}" font-size="11">all ${done} ${seconds(allReadyMs)}, ideal ${seconds(s.idealMs)}${ratio}</text>`,
    ...shares,
    `<line x1="${x0}" y1="${y(0)}" x2="${x0 + plotW}" y2="${y(0)}" stroke="#000"/>`,
    `<line x1="${x0}" y1="${y(0)}" x2="${x0}" y2="${y(1)}" stroke="#000"/>`,
    ...ticks,
    `<path d="${path(curve(s.readyMs))}" fill="none" stroke="${colour}" stroke-width="2"><title>N=${s.n} measured</title></path>`,
    `<path d="${path(ideal)}" fill="none" stroke="${colour}" stroke-width="1.5" stroke-dasharray="6 4"><title>N=${s.n} ideal</title></path>`,
    `<line x1="${x0}" y1="${legendY}" x2="${x0 + 24}" y2="${legendY}" stroke="${colour}" stroke-width="2"/>`,
    `<text x="${x0 + 30}" y="${legendY + 4}" font-size="11">N=${s.n} measured</text>`,
    `<line x1="${x0 + 150}" y1="${legendY}" x2="${x0 + 174}" y2="${legendY}" stroke="${colour}" stroke-dasharray="6 4"/>`,
    `<text x="${x0 + 180}" y="${legendY + 4}" font-size="11">N=${s.n} ideal</text>`,
  ].join('\n');
}

/**
 * One panel per N side by side, each on its own time axis (N = 100 and N = 10,000 on one axis would
 * leave the first a vertical line).
 */
export function readyChartSvg(
  series: readonly ChartSeries[],
  title: string,
  /** What the curve counts, and the axis caption (a restart's picture counts objects observed). */
  words: { done: string; axis: string } = {
    done: 'Ready',
    axis: 'time after the last apply; share of the N objects Ready',
  },
): string {
  // At least two panels wide: the title of a one-N run must fit.
  const width = Math.max(2, series.length) * PANEL_WIDTH;
  const height = PANEL_HEIGHT + 20;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${MARGIN.left}" y="18" font-size="14">${escapeXml(title)}</text>`,
    `<text x="${width / 2}" y="${height - 4}" text-anchor="middle" font-size="12">${escapeXml(words.axis)}</text>`,
    ...series.map((s, i) => panel(s, i, i * PANEL_WIDTH, words.done)),
    '</svg>',
    '',
  ].join('\n');
}
