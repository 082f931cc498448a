/**
 * The review loop in a real browser (Debian's chromium through playwright-core), issue 24: a
 * persona's agent proposes through the proposals binding while its loop runs; the operator
 * sees the proposal on the review page with who proposed; accepts it in the console; the
 * running kernel, which does not trust this operator yet, holds it, and the console says so
 * (the held row and the alert on the review page, the proposal page, the persona page, the
 * alert arriving in the live log); the operator's key is trusted on the kernel's machine
 * (`operator trust`), and the next boundary applies it, which the proposal page shows.
 *
 * Without /usr/bin/chromium the test skips, saying so, unless RUNTIMECTL_REQUIRE_BROWSER=1.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { main } from '../../../cli/main.ts';
import { readPersonaFile } from '../../profiles/load.ts';
import { OPERATOR_HOME_ENV, publicKeyPem } from '../../review-queue/index.ts';
import { makeOperators } from '../../../test/support/operator.ts';
import { fakeEnv, run, tempDir } from '../../science-loop/test/helpers.ts';
import { binderProfile, packet, proposerPlugin } from '../../review/test/agents.ts';
import { operatorDecider } from '../decide.ts';
import { startConsole, type RunningConsole } from '../server.ts';

const CHROMIUM = '/usr/bin/chromium';
const present = fs.existsSync(CHROMIUM);
const required = process.env.RUNTIMECTL_REQUIRE_BROWSER === '1';
const skip = !present && !required ? `${CHROMIUM} is not installed (apt-get install chromium; CI sets RUNTIMECTL_REQUIRE_BROWSER=1 and never skips)` : false;
const SHOTS = fs.mkdtempSync(path.join(os.tmpdir(), 'runtimectl-review-screenshots-'));

const { alice } = makeOperators(['alice']);
let browser: Browser;
let op: RunningConsole;
let loop: Promise<unknown>;
let stateDir: string;
let dir: string;
const kernelHome = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-console-kernel-operators-'));
const stopLoop = new AbortController();

before(async () => {
  if (skip) return;
  assert.ok(present, `${CHROMIUM} is required here (RUNTIMECTL_REQUIRE_BROWSER=1) but missing`);
  dir = tempDir('rtc-console-review-');
  stateDir = path.join(dir, 'state');
  const plugins = path.join(dir, 'plugins');
  proposerPlugin(plugins);
  const p = readPersonaFile(binderProfile(dir), dir);
  packet(stateDir, 'binder');
  // The kernel's operator folder is empty: it trusts nobody when it starts. alice has her own.
  loop = run([p], { stateDir, pluginPath: [plugins], cycles: undefined, everySeconds: 1, signal: stopLoop.signal, env: fakeEnv({ [OPERATOR_HOME_ENV]: kernelHome }) });
  op = await startConsole({ stateDir, port: 0, decider: operatorDecider(alice!.env, stateDir) });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-background-networking'] });
});

after(async () => {
  stopLoop.abort();
  await loop;
  await browser?.close();
  await op?.close();
  if (!skip) console.log(`review screenshots: ${SHOTS}`);
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** Reloads `url` until `selector` is on the page (what the loop does arrives between reloads). */
async function reloadUntil(page: Page, url: string, selector: string, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    await page.goto(url);
    if ((await page.locator(selector).count()) > 0) return;
    if (Date.now() > end) assert.fail(`${url} never showed ${selector}`);
    await page.waitForTimeout(500);
  }
}

test('an agent\'s proposal seen, accepted in the console, held loudly while the kernel does not trust the operator, applied once it does', { skip, timeout: 600_000 }, async () => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(op.loginUrl!);
  const id = 'P-binder-1';
  // The agent's proposal appears on the review page, with who proposed it.
  await reloadUntil(page, `${op.url}/review`, `#proposal-${id}`);
  const row = (await page.locator(`#proposal-${id}`).textContent()) ?? '';
  assert.match(row, /memory-promotion by plugin:executor\.proposer \(via binding, cycle 1\)/);
  assert.match(row, /Assay B separates A from B/);
  assert.match(row, /events#1/);
  await shot(page, '1-review-agent-proposal');

  // The persona page is open, live, while the operator accepts in another tab.
  const persona = await (await browser.newContext()).newPage();
  await persona.goto(op.loginUrl!);
  await persona.goto(`${op.url}/persona/binder`);
  await persona.locator('#live-status', { hasText: /^live$/ }).waitFor({ timeout: 60_000 });

  // The operator accepts it in the console.
  await page.goto(`${op.url}/proposal/${id}`);
  await page.fill('form.decide input[name=reason]', 'the event holds');
  await Promise.all([page.waitForNavigation(), page.click('form.decide button[value=accept]')]);
  assert.match((await page.locator('#notice').textContent()) ?? '', /accepted by alice/);

  // The kernel trusts nobody: the next boundary holds it, and the alert arrives in the persona page's live log.
  await persona.locator('#live-log li', { hasText: 'ALERT decision_not_ratified' }).first().waitFor({ timeout: 120_000 });
  const live = (await persona.locator('#live-log li', { hasText: 'ALERT decision_not_ratified' }).first().textContent()) ?? '';
  assert.match(live, new RegExp(`operator_alert ALERT decision_not_ratified: ${id} was recorded as accepted by alice but is not applied: .*no operator is trusted yet`));
  await shot(persona, '2-persona-live-alert');

  await reloadUntil(page, `${op.url}/`, '#attention-binder');
  assert.match((await page.locator('#attention-binder').textContent()) ?? '', /1 held, 1 alert\(s\) in 24 h/);
  await reloadUntil(page, `${op.url}/review`, `#held-${id}`);
  assert.match((await page.locator(`#held-${id}`).textContent()) ?? '', /HELD: .*not applied: the decision is signed by key sha256:[0-9a-f]+…, which is not a trusted operator's \(no operator is trusted yet/);
  assert.match((await page.locator('#attention').textContent()) ?? '', /decision_not_ratified: /);
  assert.ok(!((await page.locator('#attention').textContent()) ?? '').includes(kernelHome), 'no host path of the operator folder is shown or logged');
  await shot(page, '3-review-held');
  await page.goto(`${op.url}/proposal/${id}`);
  assert.equal(await page.locator('#proposal-state').textContent(), 'accepted (HELD: not applied)');
  assert.match((await page.locator('#proposal-held').textContent()) ?? '', /^Held by the loop since .*no operator is trusted yet/);
  await shot(page, '4-proposal-held');
  await persona.goto(`${op.url}/persona/binder`);
  assert.match((await persona.locator('#persona-attention').textContent()) ?? '', new RegExp(`${id}.*HELD`));

  // alice's key is trusted on the kernel's machine while it runs: the next boundary applies it.
  const pem = path.join(dir, 'alice.pem');
  fs.writeFileSync(pem, publicKeyPem(alice!.key));
  let err = '';
  const status = await main(['operator', 'trust', '--name', 'alice', '--public-key', pem], { cwd: dir, env: { [OPERATOR_HOME_ENV]: kernelHome }, stdout: () => undefined, stderr: (t) => void (err += t) });
  assert.equal(status, 0, err);
  const end = Date.now() + 120_000;
  for (;;) {
    await page.goto(`${op.url}/proposal/${id}`);
    if ((await page.locator('#proposal-state').textContent()) === 'accepted (applied)') break;
    if (Date.now() > end) assert.fail(`${id} was never applied`);
    await page.waitForTimeout(500);
  }
  assert.equal(await page.locator('#proposal-held').count(), 0, 'no longer held');
  await shot(page, '5-applied');
});
