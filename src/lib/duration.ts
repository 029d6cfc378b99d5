/** Go-style durations as annotations and flags write them: `90s`, `5m`, `1h30m`, `500ms`. */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    total += Number(amount) * (UNIT_MS[unit as string] ?? 0);
  }
  return total > 0 ? Math.round(total) : undefined;
}

/** `1.25s`, `2m3.5s`, `24h0m0s`: how status and messages show a duration. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 60) return `${Number(seconds.toFixed(3))}s`;
  const minutes = Math.floor(seconds / 60);
  const rest = `${Number((seconds - minutes * 60).toFixed(3))}s`;
  if (minutes < 60) return `${minutes}m${rest}`;
  return `${Math.floor(minutes / 60)}h${minutes % 60}m${rest}`;
}
