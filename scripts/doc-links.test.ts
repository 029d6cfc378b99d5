import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenLinks, headingAnchors, relativeLinks, slug } from './doc-links.ts';

const REPO = join(import.meta.dirname, '..');

describe('slug', () => {
  it.each([
    ['Observe-only: watch before handing over', 'observe-only-watch-before-handing-over'],
    ['From a git repository (`repo_host`)', 'from-a-git-repository-repo_host'],
    ["Where the controller's key may go", 'where-the-controllers-key-may-go'],
    ['`make bench`', 'make-bench'],
    ['Deadlines, caps and fairness', 'deadlines-caps-and-fairness'],
    ['See [Status](x.md#status) first', 'see-status-first'],
  ])('%s -> #%s (as GitHub slugs it)', (heading, anchor) => {
    expect(slug(heading)).toBe(anchor);
  });
});

describe('headingAnchors', () => {
  it('numbers repeated headings and ignores # lines in code blocks', () => {
    const page = '# Page\n## Limitations\n```sh\n# not a heading\n```\n## Limitations\n';
    expect([...headingAnchors(page)]).toEqual(['page', 'limitations', 'limitations-1']);
  });
});

describe('relativeLinks', () => {
  it('finds links and images, not URLs nor links inside code', () => {
    const page = [
      'See [a](a.md#x) and ![b](img/b.svg "B"), [c](https://example.com/c.md), [d](#d).',
      '`[e](e.md)` is code.',
      '```',
      '[f](f.md)',
      '```',
    ].join('\n');
    expect(relativeLinks(page)).toEqual([
      { line: 1, target: 'a.md#x' },
      { line: 1, target: 'img/b.svg' },
      { line: 1, target: '#d' },
    ]);
  });
});

describe('brokenLinks', () => {
  it('names a missing file, a missing heading and a path out of the repository, and passes the rest', () => {
    const root = mkdtempSync(join(tmpdir(), 'doc-links-'));
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'README.md'), '# Top\n[ok](docs/a.md#two) [dir](docs/) [gone](docs/b.md)\n');
    writeFileSync(
      join(root, 'docs/a.md'),
      '# One\n## Two\n[up](../README.md#top) [bad](#three) [out](../../x)\n',
    );
    expect(brokenLinks(root, ['README.md', 'docs/a.md'])).toEqual([
      { file: 'README.md', line: 2, target: 'docs/b.md', reason: 'no such file' },
      { file: 'docs/a.md', line: 3, target: '#three', reason: 'no heading #three' },
      { file: 'docs/a.md', line: 3, target: '../../x', reason: 'no such file' },
    ]);
  });

  it('finds every relative link of the docs leading to a file and heading that exist', () => {
    const docs = readdirSync(join(REPO, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`);
    const results = readdirSync(join(REPO, 'bench/results'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `bench/results/${f}`);
    expect(docs.length).toBeGreaterThan(5);
    expect(
      brokenLinks(REPO, ['README.md', 'DEVELOPMENT.md', 'bench/README.md', ...results, ...docs]),
    ).toEqual([]);
  });
});
