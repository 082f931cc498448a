/**
 * The front door stays a front door, and the docs hold together: README.md is at most 10 KiB,
 * and every relative link in README.md, CONTRIBUTING.md and docs/*.md names a file or folder
 * that exists and, with a `#fragment`, a heading (GitHub's anchor of it) or an explicit id there.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PROJECT_ROOT } from '../../kernel/version.ts';

const README_MAX_BYTES = 10_240;

function documents(): string[] {
  const docs = readdirSync(path.join(PROJECT_ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f));
  return ['README.md', 'CONTRIBUTING.md', ...docs];
}

/** The text with fenced code blocks and inline code spans blanked, lines kept (links there are not links). */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, '')).replace(/`[^`\n]*`/g, '``');
}

/** GitHub's anchor for a heading: its rendered text, lower-cased, punctuation dropped, spaces as hyphens. */
export function headingAnchor(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/[*]/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown file offers: its headings (duplicates numbered as GitHub does) and explicit ids. */
function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8');
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const withoutCode = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = headingAnchor(heading!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id!);
  return anchors;
}

/** The relative links of a Markdown document: `[text](target)` and `![alt](target)`, not URLs or mail. */
function relativeLinks(text: string): { target: string; line: number }[] {
  const body = prose(text);
  const links: { target: string; line: number }[] = [];
  for (const m of body.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
    links.push({ target, line: body.slice(0, m.index).split('\n').length });
  }
  return links;
}

/** What is wrong with one link, or undefined. */
function brokenLink(from: string, target: string): string | undefined {
  const [file, fragment] = target.split('#', 2) as [string, string | undefined];
  const resolved = file === '' ? path.join(PROJECT_ROOT, from) : path.resolve(PROJECT_ROOT, path.dirname(from), decodeURIComponent(file));
  if (!existsSync(resolved)) return `${path.relative(PROJECT_ROOT, resolved)} does not exist`;
  if (fragment === undefined || fragment === '') return undefined;
  if (!statSync(resolved).isFile() || !resolved.endsWith('.md')) return `#${fragment} points into ${path.relative(PROJECT_ROOT, resolved)}, which is not a Markdown file`;
  return anchorsOf(resolved).has(decodeURIComponent(fragment)) ? undefined : `${path.relative(PROJECT_ROOT, resolved)} has no heading or id for #${fragment}`;
}

test(`README.md is a front door: at most ${README_MAX_BYTES} bytes, the reference is in docs/`, () => {
  const bytes = statSync(path.join(PROJECT_ROOT, 'README.md')).size;
  assert.ok(bytes <= README_MAX_BYTES, `README.md is ${bytes} bytes; move reference material into docs/`);
});

test('every relative link in README.md, CONTRIBUTING.md and docs/*.md resolves, files and #anchors', (t) => {
  const broken: string[] = [];
  let count = 0;
  for (const doc of documents()) {
    for (const { target, line } of relativeLinks(readFileSync(path.join(PROJECT_ROOT, doc), 'utf8'))) {
      count += 1;
      const why = brokenLink(doc, target);
      if (why) broken.push(`${doc}:${line}: (${target}): ${why}`);
    }
  }
  t.diagnostic(`${count} relative links checked in ${documents().length} documents`);
  assert.ok(count > 50, `links were found (${count})`);
  assert.deepEqual(broken, []);
});

test('the link check can fail: a missing file, a missing anchor, a link into a folder with an anchor', () => {
  assert.equal(brokenLink('README.md', 'docs/no-such-page.md'), 'docs/no-such-page.md does not exist');
  assert.equal(brokenLink('README.md', 'docs/sandbox.md#no-such-heading'), 'docs/sandbox.md has no heading or id for #no-such-heading');
  assert.equal(brokenLink('README.md', 'docs/sandbox.md#what-the-sandbox-supports'), undefined);
  assert.equal(brokenLink('docs/cli.md', 'errors.md#rtc_err_cli_usage'), undefined);
  assert.match(brokenLink('README.md', 'docs#x')!, /not a Markdown file/);
  assert.deepEqual(relativeLinks('see [a](a.md) and `[b](b.md)` and [c](https://x.org)\n```\n[d](d.md)\n```\n![e](e.png "title")'), [
    { target: 'a.md', line: 1 },
    { target: 'e.png', line: 5 },
  ]);
});

test('GitHub anchors: code, punctuation and entities as GitHub renders them', () => {
  assert.equal(headingAnchor('`RTC_ERR_CLI_USAGE`'), 'rtc_err_cli_usage');
  assert.equal(headingAnchor('Plugins, manifests, profiles'), 'plugins-manifests-profiles');
  assert.equal(headingAnchor('Threat model (what isolated-vm holds, and what it does not)'), 'threat-model-what-isolated-vm-holds-and-what-it-does-not');
  assert.equal(headingAnchor("The operator's console and the live tail"), 'the-operators-console-and-the-live-tail');
  assert.equal(headingAnchor('Substrate record (plugin manifest and bundle digests, &lt;state&gt;/substrate.json)'), 'substrate-record-plugin-manifest-and-bundle-digests-statesubstratejson');
});
