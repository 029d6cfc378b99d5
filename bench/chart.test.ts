import { describe, expect, it } from 'vitest';
import { readyChartSvg } from './chart.ts';

describe('readyChartSvg', () => {
  it('draws one measured and one dashed ideal line per N, with a legend', () => {
    const svg = readyChartSvg(
      [
        { n: 3, readyMs: [100, 200, 300], idealMs: 250, idealFirstReadyMs: 50 },
        { n: 2, readyMs: [-20, 400], idealMs: 300, idealFirstReadyMs: 50 },
      ],
      'all Ready <fast>',
    );
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/<path /g)).toHaveLength(4);
    expect(svg.match(/stroke-dasharray="6 4"><title>/g)).toHaveLength(2);
    expect(svg).toContain('N=3 measured');
    expect(svg).toContain('N=2 ideal');
    expect(svg).toContain('all Ready &lt;fast&gt;');
    // Each panel states its figures: all Ready, the ideal and their ratio.
    expect(svg).toContain('all Ready 0.3 s, ideal 0.3 s (1.20× ideal)');
    expect(svg).toContain('all Ready 0.4 s, ideal 0.3 s (1.33× ideal)');
  });

  it('gives each N a panel of its own, side by side', () => {
    const svg = readyChartSvg(
      [100, 1000, 10_000].map((n) => ({ n, readyMs: [n], idealMs: n, idealFirstReadyMs: 0 })),
      't',
    );
    expect(svg).toContain('width="1020"');
    // Each panel's time axis ends at its own N's time, not the largest.
    expect(svg).toContain('>0.1 s</text>');
    expect(svg).toContain('>10 s</text>');
  });

  it('keeps a 10,000-object curve to a few hundred points', () => {
    const readyMs = Array.from({ length: 10_000 }, (_, i) => i);
    const svg = readyChartSvg([{ n: 10_000, readyMs, idealMs: 5_000, idealFirstReadyMs: 300 }], 't');
    const measured = /<path d="([^"]+)"/.exec(svg)?.[1] ?? '';
    expect(measured.split(' ').length).toBeLessThan(500);
  });
});
