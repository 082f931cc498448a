/**
 * Issue 24 item 5: the console's login URL is one-time, it expires, and a session ends on
 * logout, when idle too long and when too old. In a real browser (Debian's chromium through
 * playwright-core): the first browser that opens the URL decides; a second browser with the
 * same URL is refused, and the server prints a new URL for the next login; logout ends the
 * session for good (its cookie, replayed by hand, is worth nothing after); a URL left unused
 * past its lifetime and a session idle or old past its limits are refused too (on the
 * console's own clock, moved forward here).
 *
 * Without /usr/bin/chromium the test skips, saying so, unless RUNTIMECTL_REQUIRE_BROWSER=1
 * (CI), where it fails instead.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startConsole, type RunningConsole } from '../server.ts';
import { operatorDecider } from '../decide.ts';
import { request, tempDir } from './helpers.ts';
import { makeOperators } from '../../../test/support/operator.ts';

const { alice } = makeOperators(['alice']);

const CHROMIUM = '/usr/bin/chromium';
const present = fs.existsSync(CHROMIUM);
const required = process.env.RUNTIMECTL_REQUIRE_BROWSER === '1';
const skip = !present && !required ? `${CHROMIUM} is not installed (apt-get install chromium; CI sets RUNTIMECTL_REQUIRE_BROWSER=1 and never skips)` : false;

const MIN = 60_000;
let browser: Browser;
let now = Date.parse('2030-01-01T00:00:00Z');
const printed: { url: string; why: string }[] = [];
let op: RunningConsole;

before(async () => {
  if (skip) return;
  assert.ok(present, `${CHROMIUM} is required here (RUNTIMECTL_REQUIRE_BROWSER=1) but missing`);
  const stateDir = path.join(tempDir('rtc-login-'), 'state');
  fs.mkdirSync(stateDir, { recursive: true });
  op = await startConsole({
    stateDir,
    port: 0,
    clock: () => now,
    decider: operatorDecider(alice!.env, stateDir),
    sessionTimes: { loginTtlMs: 15 * MIN, idleMs: 30 * MIN, maxMs: 12 * 60 * MIN },
    onLoginUrl: (url, why) => printed.push({ url, why }),
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-background-networking'] });
});

after(async () => {
  await browser?.close();
  await op?.close();
});

async function mode(page: Page): Promise<string> {
  return (await page.locator('header .mode').textContent()) ?? '';
}

/** A fresh browser (its own cookie jar) at `url`. */
async function fresh(url: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(url);
  return page;
}

test('the login URL opens one browser, once; logout ends the session for good; a new URL is printed for the next login', { skip, timeout: 180_000 }, async () => {
  const first = op.loginUrl!;
  const operator = await fresh(first);
  assert.equal(new URL(operator.url()).pathname, '/');
  assert.match(await mode(operator), /operator alice/);
  assert.equal(await operator.locator('#logout').count(), 1, 'a logged-in operator has a logout button');
  const cookies = await operator.context().cookies();
  const session = cookies.find((c) => c.name === 'rtc_console')!;
  assert.ok(session.httpOnly && session.sameSite === 'Strict', 'HttpOnly, SameSite=Strict');
  assert.ok(session.expires > 0, 'the cookie ends with the session (Max-Age)');

  // A second browser with the same URL: refused, and no session for it.
  const second = await fresh(first);
  assert.match((await second.locator('#error').textContent()) ?? '', /RTC_ERR_CONSOLE_AUTH: this login URL was already used: it opens one browser session, once; a new one-time URL was printed where runtimectl serve runs/);
  assert.equal((await second.context().cookies()).length, 0);
  assert.equal(printed.length, 1, 'the spent URL was replaced by a new one, printed for the operator');
  assert.equal(printed[0]!.why, 'used');
  assert.notEqual(printed[0]!.url, first);
  // The first browser is still logged in.
  await operator.reload();
  assert.match(await mode(operator), /operator alice/);

  // Logout: the session is over, and its cookie is worth nothing replayed by hand.
  await Promise.all([operator.waitForNavigation(), operator.click('#logout')]);
  assert.match(await mode(operator), /read-only \(log in as alice/);
  assert.equal((await operator.context().cookies()).filter((c) => c.name === 'rtc_console').length, 0, 'the cookie is cleared');
  const replayed = await request(`${op.url}/`, { headers: { cookie: `rtc_console=${session.value}` } });
  assert.match(replayed.text, /read-only \(log in as alice/);
  assert.doesNotMatch(replayed.text, /id="logout"/);
  // Logging out is the console's own form's to do: a cross-site post is refused.
  const forged = await request(`${op.url}/logout`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded', cookie: `rtc_console=${session.value}` }, body: 'csrf=x' });
  assert.equal(forged.status, 403);

  // The URL printed for the next login works, once.
  const next = await fresh(printed[0]!.url);
  assert.match(await mode(next), /operator alice/);
  assert.equal(printed.length, 2);
});

test('a login URL left unused expires; a session idle too long, or too old however busy, ends', { skip, timeout: 180_000 }, async () => {
  // The URL printed last, unused for longer than its lifetime: refused, and a new one printed.
  const unused = printed.at(-1)!.url;
  now += 16 * MIN;
  const late = await fresh(unused);
  assert.match((await late.locator('#error').textContent()) ?? '', /RTC_ERR_CONSOLE_AUTH: this login URL expired \(it is valid for 15 min\): a new one-time URL was printed/);
  assert.equal(printed.at(-1)!.why, 'expired');

  // Idle: 31 minutes without a request ends the session.
  const idle = await fresh(printed.at(-1)!.url);
  assert.match(await mode(idle), /operator alice/, 'the URL printed after the expiry opens a session');
  now += 29 * MIN;
  await idle.reload();
  assert.match(await mode(idle), /operator alice/, 'within the idle limit it lives on');
  now += 31 * MIN;
  await idle.reload();
  assert.match(await mode(idle), /read-only \(log in as alice/, 'idle too long: read-only');

  // Age: active every 20 minutes, it lives for 12 hours and not a request longer. (The last URL
  // printed was minted at the idle session's login, over 15 min ago: refused, and a new one printed.)
  const busy = await fresh(printed.at(-1)!.url);
  assert.match((await busy.locator('#error').textContent()) ?? '', /this login URL expired/);
  await busy.goto(printed.at(-1)!.url);
  assert.match(await mode(busy), /operator alice/);
  for (let elapsed = 20; elapsed <= 12 * 60; elapsed += 20) {
    now += 20 * MIN;
    await busy.reload();
    assert.match(await mode(busy), /operator alice/, `alive ${elapsed} min after login`);
  }
  now += 20 * MIN;
  await busy.reload();
  assert.match(await mode(busy), /read-only \(log in as alice/, 'older than 12 hours: read-only');
});
