/**
 * A chain's gate list as DEVELOPMENT.md writes it: the bullet starting `- **<title>**`, its gates in
 * backticks joined by arrows (the first gate is the last name before the first arrow, each other the
 * first name after its arrow). The chains' own chain.test.ts compare it with their gate lists.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export function documentedChain(title: string): string[] {
  const lines = readFileSync(resolve(ROOT, 'DEVELOPMENT.md'), 'utf8').split('\n');
  const start = lines.findIndex((l) => l.startsWith(`- **${title}**`));
  if (start < 0) return [];
  const bullet = [lines[start]];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('  ')) break;
    bullet.push(line);
  }
  const segments = bullet.join(' ').split('→');
  const names = (text: string | undefined) =>
    [...(text ?? '').matchAll(/`(\w+)`/g)].map((m) => m[1] as string);
  return segments.map((segment, i) => (i === 0 ? names(segment).at(-1) : names(segment)[0]) ?? '');
}
