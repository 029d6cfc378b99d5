/**
 * The picture beside a run's JSON: objects Ready over time after the last apply, one line per N as a
 * share of its N, with each N's ideal as a dashed line (no object Ready before one revision's walk,
 * then Ready at the workers' full rate until all N are, at the ideal time). Plain SVG, no dependency.
 */
export interface ChartSeries {
  n: number;
  /** When each object turned Ready, in ms after the last apply (negative: before it). */
  readyMs: readonly number[];
  idealMs: number;
  /** The ideal's first Ready: one revision's walk after the apply. */
  idealFirstReadyMs: number;
}

const WIDTH = 720;
const HEIGHT = 420;
const MARGIN = { left: 60, right: 160, top: 30, bottom: 50 };
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

export function readyChartSvg(series: readonly ChartSeries[], title: string): string {
  const maxMs = Math.max(1, ...series.flatMap((s) => [...s.readyMs, s.idealMs]));
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (ms: number) => (MARGIN.left + (ms / maxMs) * plotW).toFixed(1);
  const y = (share: number) => (MARGIN.top + (1 - share) * plotH).toFixed(1);
  const path = (points: readonly [number, number][]) =>
    points.map(([ms, share], i) => `${i === 0 ? 'M' : 'L'}${x(ms)},${y(share)}`).join(' ');
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const ms = f * maxMs;
    return `<line x1="${x(ms)}" y1="${y(0)}" x2="${x(ms)}" y2="${y(0)}" stroke="#000"/><text x="${x(ms)}" y="${Number(y(0)) + 18}" text-anchor="middle" font-size="11">${(ms / 1000).toFixed(1)} s</text>`;
  });
  const shares = [0, 0.5, 1].map(
    (s) =>
      `<text x="${MARGIN.left - 8}" y="${Number(y(s)) + 4}" text-anchor="end" font-size="11">${s * 100}%</text>` +
      `<line x1="${MARGIN.left}" y1="${y(s)}" x2="${WIDTH - MARGIN.right}" y2="${y(s)}" stroke="#ddd"/>`,
  );
  const lines = series.map((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const ideal: [number, number][] = [
      [0, 0],
      [s.idealFirstReadyMs, 0],
      [s.idealMs, 1],
    ];
    const legendY = MARGIN.top + 10 + i * 36;
    return [
      `<path d="${path(curve(s.readyMs))}" fill="none" stroke="${colour}" stroke-width="2"><title>N=${s.n} measured</title></path>`,
      `<path d="${path(ideal)}" fill="none" stroke="${colour}" stroke-width="1.5" stroke-dasharray="6 4"><title>N=${s.n} ideal</title></path>`,
      `<line x1="${WIDTH - MARGIN.right + 12}" y1="${legendY}" x2="${WIDTH - MARGIN.right + 36}" y2="${legendY}" stroke="${colour}" stroke-width="2"/>`,
      `<text x="${WIDTH - MARGIN.right + 42}" y="${legendY + 4}" font-size="12">N=${s.n} measured</text>`,
      `<line x1="${WIDTH - MARGIN.right + 12}" y1="${legendY + 16}" x2="${WIDTH - MARGIN.right + 36}" y2="${legendY + 16}" stroke="${colour}" stroke-dasharray="6 4"/>`,
      `<text x="${WIDTH - MARGIN.right + 42}" y="${legendY + 20}" font-size="12">N=${s.n} ideal</text>`,
    ].join('\n');
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`,
    `<text x="${MARGIN.left}" y="18" font-size="14">${escapeXml(title)}</text>`,
    ...shares,
    `<line x1="${MARGIN.left}" y1="${y(0)}" x2="${WIDTH - MARGIN.right}" y2="${y(0)}" stroke="#000"/>`,
    `<line x1="${MARGIN.left}" y1="${y(0)}" x2="${MARGIN.left}" y2="${y(1)}" stroke="#000"/>`,
    ...ticks,
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 10}" text-anchor="middle" font-size="12">time after the last apply</text>`,
    `<text x="14" y="${MARGIN.top + plotH / 2}" font-size="12" transform="rotate(-90 14 ${MARGIN.top + plotH / 2})" text-anchor="middle">objects Ready</text>`,
    ...lines,
    '</svg>',
    '',
  ].join('\n');
}
