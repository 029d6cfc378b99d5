/**
 * Relative links of the Markdown docs, checked the way GitHub renders them: a link to a file must name
 * one that exists (relative to the page), and its `#anchor` must be a heading of that page, slugged as
 * GitHub slugs headings. Links inside code (fenced blocks, inline spans) are text, not links.
 */

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/** GitHub's heading anchor: lower case, punctuation dropped (not `-` or `_`), each space a `-`. */
export const slug = (heading: string): string =>
  heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');

/** The lines of a page outside fenced code blocks, with their 1-based numbers. */
const proseLines = (text: string): { line: number; text: string }[] => {
  const out: { line: number; text: string }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, i) => {
    const opening = /^\s*(```|~~~)/.exec(line)?.[1];
    if (opening !== undefined && (fence === undefined || fence === opening)) {
      fence = fence === undefined ? opening : undefined;
      return;
    }
    if (fence === undefined) out.push({ line: i + 1, text: line });
  });
  return out;
};

/** The anchors of a page's headings; a repeated heading gets `-1`, `-2`... as on GitHub. */
export const headingAnchors = (markdown: string): Set<string> => {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6} +(.*?) *#* *$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
};

/** Every link and image target of a page that is not a URL with a scheme, with its line. */
export const relativeLinks = (markdown: string): { line: number; target: string }[] =>
  proseLines(markdown).flatMap(({ line, text }) =>
    [...text.replace(/`[^`]*`/g, 'code').matchAll(/\]\(([^)\s]+)(?: +"[^"]*")?\)/g)]
      .map((m) => m[1] as string)
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
      .map((target) => ({ line, target })),
  );

/** The links of `files` (paths relative to `root`) that lead nowhere. */
export const brokenLinks = (root: string, files: readonly string[]): BrokenLink[] => {
  const read = (file: string) => readFileSync(join(root, file), 'utf8');
  return files.flatMap((file) =>
    relativeLinks(read(file)).flatMap(({ line, target }) => {
      const [path = '', anchor] = target.split('#', 2);
      const destination = path === '' ? file : normalize(join(dirname(file), decodeURI(path)));
      const broken = (reason: string) => [{ file, line, target, reason }];
      if (destination.startsWith('..') || !existsSync(join(root, destination))) return broken('no such file');
      if (anchor === undefined || !destination.endsWith('.md')) return [];
      return headingAnchors(read(destination)).has(anchor) ? [] : broken(`no heading #${anchor}`);
    }),
  );
};
