import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/child.ts';
import { anchors, relativeLinks } from '../helpers/doc-links.ts';
import { docPages } from '../helpers/readme-blocks.ts';

const pages = docPages(repoRoot);
const read = (page: string) => readFileSync(join(repoRoot, page), 'utf8');

/** What is wrong with one link of a page, or null. */
function brokenLink(page: string, target: string): string | null {
  const [path, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = path ? normalize(join(dirname(page), decodeURIComponent(path))) : page;
  if (file.startsWith('..')) return `${target} leaves the repository`;
  if (!existsSync(join(repoRoot, file))) return `${target}: no file ${file}`;
  if (anchor === undefined) return null;
  if (!file.endsWith('.md') || statSync(join(repoRoot, file)).isDirectory()) return `${target}: an anchor into ${file}, which is not a Markdown page`;
  return anchors(read(file)).has(decodeURIComponent(anchor)) ? null : `${target}: no heading or anchor "${anchor}" in ${file}`;
}

test('the link checker knows GitHub heading anchors and finds links outside code', () => {
  const page = [
    '# Set-up: two commands',
    '## `GET /invoice/{id}`',
    '## Fixed-address mode (USDT always; USDC without an xpub)',
    '## Health',
    '## Health',
    '## See [chains](chains.md)',
    '| <a id="bad_body"></a>`bad_body` |',
    '```md',
    '# Not a heading',
    '[not a link](nowhere.md)',
    '```',
    'Read [this](a.md#x) and ![img](screenshots/p.png), not `[code](b.md)` or [web](https://example.com).',
  ].join('\n');
  assert.deepEqual(
    [...anchors(page)].sort(),
    ['bad_body', 'fixed-address-mode-usdt-always-usdc-without-an-xpub', 'get-invoiceid', 'health', 'health-1', 'see-chains', 'set-up-two-commands'],
  );
  assert.deepEqual(relativeLinks(page), [
    { line: 6, target: 'chains.md' },
    { line: 12, target: 'a.md#x' },
    { line: 12, target: 'screenshots/p.png' },
  ]);
});

test('every relative link and anchor in README.md and docs/*.md resolves', () => {
  assert.ok(pages.length > 5, `pages: ${pages.join(', ')}`);
  const checked = pages.flatMap((page) => relativeLinks(read(page)));
  assert.ok(checked.filter(({ target }) => target.includes('#')).length > 50, 'the pages link each other by anchor');
  const problems = pages.flatMap((page) =>
    relativeLinks(read(page)).flatMap(({ line, target }) => {
      const problem = brokenLink(page, target);
      return problem ? [`${page}:${line}: ${problem}`] : [];
    }),
  );
  assert.deepEqual(problems, [], `broken links:\n${problems.join('\n')}`);
});

test('every page of the manual is reachable from its index, and nothing links SPEC.md', () => {
  const index = relativeLinks(read('docs/README.md')).map(({ target }) => normalize(join('docs', target.split('#')[0])));
  const unlisted = pages.filter((page) => page.startsWith('docs/') && page !== 'docs/README.md' && !index.includes(page));
  assert.deepEqual(unlisted, [], 'pages missing from docs/README.md');
  for (const page of pages) assert.doesNotMatch(read(page), /SPEC\.md/, `${page} mentions SPEC.md`);
});
