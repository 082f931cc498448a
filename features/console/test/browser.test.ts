/**
 * The console in a real browser (Debian's chromium, driven by playwright-core): the overview
 * with two personas whose loop is running, a new cycle appearing without a reload, a persona
 * page, accepting a pending proposal as the logged-in operator and seeing it applied at the
 * next cycle boundary, and the same decision refused to a browser without the operator's
 * session and by a console started without a credential. Screenshots of each page are saved
 * outside the repository (the path is printed).
 *
 * Without /usr/bin/chromium the test skips, saying so, unless RUNTIMECTL_REQUIRE_BROWSER=1
 * (CI), where it fails instead.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startConsole, type RunningConsole } from '../server.ts';
import { operatorDecider } from '../decide.ts';
import { openPersonaReviewQueue } from '../../review-queue/index.ts';
import { fleet, propose, run, type Fleet } from './helpers.ts';
import { fakeEnv } from '../../science-loop/test/helpers.ts';
import { makeOperators } from '../../../test/support/operator.ts';
import { persistenceProvider } from '../../persistence/provider.ts';

const { alice } = makeOperators(['alice']);

const CHROMIUM = '/usr/bin/chromium';
const present = fs.existsSync(CHROMIUM);
const required = process.env.RUNTIMECTL_REQUIRE_BROWSER === '1';
const skip = !present && !required ? `${CHROMIUM} is not installed (apt-get install chromium; CI sets RUNTIMECTL_REQUIRE_BROWSER=1 and never skips)` : false;

const SHOTS = fs.mkdtempSync(path.join(os.tmpdir(), 'runtimectl-console-screenshots-'));

let f: Fleet;
let op: RunningConsole;
let ro: RunningConsole;
let browser: Browser;
let loop: Promise<unknown>;
const stopLoop = new AbortController();

before(async () => {
  if (skip) return;
  assert.ok(present, `${CHROMIUM} is required here (RUNTIMECTL_REQUIRE_BROWSER=1) but missing`);
  f = await fleet();
  op = await startConsole({ stateDir: f.stateDir, port: 0, decider: operatorDecider(alice!.env, f.stateDir) });
  ro = await startConsole({ stateDir: f.stateDir, port: 0 });
  // Both personas keep cycling, a cycle every second, for the whole test; the kernel trusts
  // alice's key (her operator folder's trust list), so her decisions take effect.
  loop = run(f.personas, { stateDir: f.stateDir, cycles: undefined, everySeconds: 1, signal: stopLoop.signal, env: { ...fakeEnv(), ...alice!.env } });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-background-networking'] });
});

after(async () => {
  stopLoop.abort();
  await loop;
  await browser?.close();
  await op?.close();
  await ro?.close();
  if (!skip) console.log(`console screenshots: ${SHOTS}`);
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

async function stateOf(id: string): Promise<string> {
  const queue = await openPersonaReviewQueue(path.join(f.stateDir, 'jerome'), persistenceProvider, { readonly: true });
  try {
    const p = queue.get(id);
    return p.applied ? `${p.state}+applied` : p.state;
  } finally {
    await queue.close();
  }
}

test('overview live, a persona page, accept with the operator session and see it applied; refused without it', { skip, timeout: 300_000 }, async () => {
  const pending = await propose(f.stateDir, 'jerome', 'Assay B separates hypotheses A and B (browser test).');
  const operator = await browser.newContext();
  const page = await operator.newPage();
  await page.goto(op.loginUrl!);
  assert.equal(new URL(page.url()).pathname, '/', 'the login URL lands on the overview');
  await page.locator('#fleet-ada').waitFor();
  await page.locator('#fleet-jerome').waitFor();
  assert.match((await page.locator('header .mode').textContent()) ?? '', /operator alice/);
  // a cycle the loop runs now appears in the page without a reload
  await page.locator('#live-log li', { hasText: 'continuous_loop_cycle' }).first().waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#live-status').textContent(), 'live');
  await shot(page, '1-overview');

  await page.click('#fleet-jerome a[href="/persona/jerome"]');
  await page.locator('#cycles').waitFor();
  const rendered = await page.locator('#cycles tbody tr:not(.live-new)').evaluateAll((rows) => rows.map((r) => r.id));
  await page.locator('#cycles tbody tr.live-new').first().waitFor({ timeout: 60_000 });
  const arrived = await page.locator('#cycles tbody tr.live-new').first().getAttribute('id');
  assert.ok(arrived && !rendered.includes(arrived), `a new cycle row arrived live (${arrived}; rendered ${rendered.join(', ')})`);
  await shot(page, '2-persona');

  await page.goto(`${op.url}/review`);
  await page.locator(`#proposal-${pending}`).waitFor();
  await shot(page, '3-review-queue');
  await page.goto(`${op.url}/proposal/${pending}/evidence/0`);
  assert.match((await page.locator('#evidence-verify').textContent()) ?? '', /evidence verify: holds/);
  await shot(page, '4-evidence');

  // Another browser, without the operator's session, posts the very form the operator got.
  await page.goto(`${op.url}/proposal/${pending}`);
  const form = await page.locator('form.decide').evaluate((el) => el.outerHTML);
  const stranger = await (await browser.newContext()).newPage();
  await stranger.goto(`${op.url}/proposal/${pending}`);
  assert.equal(await stranger.locator('form.decide').count(), 0, 'no decision form without the session');
  assert.match((await stranger.locator('main').textContent()) ?? '', /read-only: log in as operator alice/);
  await stranger.locator('main').evaluate((main, html) => main.insertAdjacentHTML('beforeend', html), form);
  await Promise.all([stranger.waitForNavigation(), stranger.locator('form.decide button[value=accept]').click()]);
  assert.match((await stranger.locator('#error').textContent()) ?? '', /RTC_ERR_CONSOLE_AUTH: not logged in as operator alice/);
  await shot(stranger, '5-refused-without-session');
  // and a console started without a credential has nothing that can decide
  const readOnly = await (await browser.newContext()).newPage();
  await readOnly.goto(`${ro.url}/proposal/${pending}`);
  await readOnly.locator('main').evaluate((main, html) => main.insertAdjacentHTML('beforeend', html), form);
  await Promise.all([readOnly.waitForNavigation(), readOnly.locator('form.decide button[value=accept]').click()]);
  assert.match((await readOnly.locator('#error').textContent()) ?? '', /RTC_ERR_CONSOLE_AUTH: this console is read-only/);
  assert.equal(await stateOf(pending), 'pending', 'the refused clicks decided nothing');

  // The operator accepts; the next cycle boundary applies it, and the persona page shows it live.
  await page.fill('form.decide input[name=reason]', 'the gate evidence holds');
  await Promise.all([page.waitForNavigation(), page.click('form.decide button[value=accept]')]);
  assert.match((await page.locator('#notice').textContent()) ?? '', /accepted by alice: it takes effect at the persona's next cycle boundary/);
  await page.goto(`${op.url}/persona/jerome`);
  await page.locator('#cycles tbody tr', { hasText: pending }).first().waitFor({ timeout: 60_000 });
  assert.equal(await stateOf(pending), 'accepted+applied');
  await page.goto(`${op.url}/proposal/${pending}`);
  assert.equal(await page.locator('#proposal-state').textContent(), 'accepted (applied)');
  await shot(page, '6-applied');
});
