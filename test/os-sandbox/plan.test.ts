/**
 * The OS sandbox's view, planned from a grant (no bubblewrap needed: the plan is pure file
 * system inspection). What bind mounts cannot express is refused, never widened.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isKernelError } from '../../kernel/errors.ts';
import { bwrapArgs, encodeArgs } from '../../sandboxes/subprocess/os-sandbox/bwrap-argv.ts';
import { grantView } from '../../sandboxes/subprocess/os-sandbox/grant-view.ts';
import { planSandbox, type SandboxContext } from '../../sandboxes/subprocess/os-sandbox/plan.ts';
import { tempDir } from '../../features/science-loop/test/helpers.ts';

type Side = true | string[];
function grant(read: Side, write: Side, extra: { denyRead?: string[]; denyWrite?: string[]; net?: Side } = {}) {
  return grantView({
    layers: [
      {
        label: 'caller',
        set: {
          read: { allow: read, deny: extra.denyRead ?? [] },
          write: { allow: write, deny: extra.denyWrite ?? [] },
          net: { allow: extra.net ?? [], deny: [] },
        },
      },
    ],
  });
}

function layout() {
  const root = tempDir('rtc-plan-');
  const state = path.join(root, 'state');
  const own = path.join(state, 'ada');
  const ws = path.join(own, 'brain', 'workspace');
  const other = path.join(state, 'bo');
  for (const d of [ws, other, path.join(own, 'logs')]) mkdirSync(d, { recursive: true });
  return { root, state, own, ws, other };
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(isKernelError(error), String(error));
    assert.equal(error.code, 'RTC_ERR_OSBOX_GRANT');
    return error.message;
  }
  assert.fail('expected RTC_ERR_OSBOX_GRANT');
}

const plan = (g: ReturnType<typeof grant>, context: SandboxContext, cwd: string) =>
  planSandbox({ grant: g, context, executable: '/usr/bin/sh', cwd, searchPath: '/usr/bin:/bin', helpers: [] });

test('the grant is what is bound: writable trees read-write, read trees read-only, the rest absent', () => {
  const l = layout();
  const p = plan(grant([l.own], [l.ws]), { hide: [l.state], own: l.own }, l.ws);
  assert.deepEqual(p.view.writable, [l.ws]);
  assert.deepEqual(p.view.readOnly, [l.own]);
  const binds = p.mounts.filter((m) => m.kind === 'rw' || m.kind === 'ro').map((m) => `${m.kind} ${'dest' in m ? m.dest : ''}`);
  assert.ok(binds.includes(`rw ${l.ws}`));
  assert.ok(binds.includes(`ro ${l.own}`));
  assert.ok(binds.includes('ro /usr'));
  assert.ok(!binds.some((b) => b.endsWith(l.other)), "another persona's folder is not bound");
  // the writable tree is mounted after (on top of) the read-only one that holds it
  assert.ok(binds.indexOf(`rw ${l.ws}`) > binds.indexOf(`ro ${l.own}`));
});

test('read: true shows the host read-only but masks the state root, /run and /sys, and re-binds the persona inside', () => {
  const l = layout();
  const p = plan(grant(true, [l.ws]), { hide: [l.state], own: l.own }, l.ws);
  assert.ok(p.view.masked.includes('/run'));
  assert.ok(p.view.masked.includes('/sys'));
  const order = p.mounts.map((m) => `${m.kind} ${'dest' in m ? m.dest : ''}`);
  if (l.state.startsWith('/tmp/')) {
    // Under the host's /tmp the private /tmp already hides the state root: nothing of it is bound
    // but the persona's own tree, laid over the private /tmp.
    assert.ok(!p.mounts.some((m) => (m.kind === 'ro' || m.kind === 'rw') && m.dest === l.state), 'the state root is not bound');
    assert.ok(order.indexOf('tmpfs /tmp') < order.indexOf(`rw ${l.ws}`), 'the private /tmp first, the persona on top');
  } else {
    assert.ok(p.view.masked.includes(l.state));
    assert.ok(order.indexOf(`mask-dir ${l.state}`) < order.indexOf(`rw ${l.ws}`), 'the mask is laid first, the persona on top');
    assert.ok(p.remountReadOnly.includes(l.state));
  }
});

test('write without read cannot be expressed by a bind mount: refused, not widened', () => {
  const l = layout();
  assert.match(refusal(() => plan(grant([l.ws], [l.own]), { hide: [l.state], own: l.own }, l.ws)), /is writable but not readable under this grant/);
});

test("a grant that names another persona's state (or the kernel's) is refused", () => {
  const l = layout();
  assert.match(refusal(() => plan(grant([l.own, l.other], [l.ws]), { hide: [l.state], own: l.own }, l.ws)), /kernel or another persona's state/);
  const cache = path.join(l.root, 'cache');
  mkdirSync(cache);
  assert.match(refusal(() => plan(grant([cache], []), { hide: [l.state, cache], own: l.own }, l.ws)), /kernel or another persona's state/);
});

test('a granted path that is a link out of the grant is refused', () => {
  const l = layout();
  const outside = path.join(l.root, 'outside');
  mkdirSync(outside);
  const link = path.join(l.own, 'brain', 'escape');
  symlinkSync(outside, link);
  assert.match(refusal(() => plan(grant([link], [link]), { hide: [l.state], own: l.own }, l.ws)), /is a link to .*outside|which the grant does not/);
  const intoOther = path.join(l.own, 'brain', 'peek');
  symlinkSync(l.other, intoOther);
  assert.match(refusal(() => plan(grant([intoOther, l.other], []), { hide: [l.state], own: l.own }, l.ws)), /another persona's state/);
});

test('a denied path inside a writable tree is masked; one that does not exist yet is refused (the child could create it)', () => {
  const l = layout();
  writeFileSync(path.join(l.ws, 'secret.txt'), 'x');
  const ok = plan(grant([l.ws], [l.ws], { denyRead: [path.join(l.ws, 'secret.txt')] }), { hide: [l.state], own: l.own }, l.ws);
  assert.ok(ok.mounts.some((m) => m.kind === 'mask-file' && m.dest === path.join(l.ws, 'secret.txt')));
  assert.match(refusal(() => plan(grant([l.ws], [l.ws], { denyRead: [path.join(l.ws, 'later')] }), { hide: [l.state], own: l.own }, l.ws)), /does not exist inside a writable tree/);
  mkdirSync(path.join(l.ws, 'ro'));
  const ro = plan(grant([l.ws], [l.ws], { denyWrite: [path.join(l.ws, 'ro')] }), { hide: [l.state], own: l.own }, l.ws);
  assert.ok(ro.view.readOnly.includes(path.join(l.ws, 'ro')), 'a write-denied folder is bound read-only over the writable tree');
});

test('HOME must be writable under the grant', () => {
  const l = layout();
  const home = path.join(l.own, 'brain', 'providers', 'codex');
  mkdirSync(home, { recursive: true });
  assert.match(refusal(() => plan(grant([l.own], [l.ws]), { hide: [l.state], own: l.own, home }, l.ws)), /HOME .* is not readable and writable under this grant/);
  assert.doesNotThrow(() => plan(grant([l.own], [l.ws, home]), { hide: [l.state], own: l.own, home }, l.ws));
});

test('the bwrap options carry the environment through the argument pipe, never argv', () => {
  const l = layout();
  const p = plan(grant([l.ws], [l.ws]), { hide: [l.state], own: l.own }, l.ws);
  const { options, command } = bwrapArgs({ plan: p, cwd: l.ws, env: { OPENAI_API_KEY: 'sk-test-1234567890' }, infoFd: 4, argv: ['/usr/bin/codex', 'exec'] });
  assert.deepEqual(command, ['--', '/usr/bin/codex', 'exec']);
  assert.ok(!command.join(' ').includes('sk-test'));
  for (const flag of ['--unshare-all', '--die-with-parent', '--new-session', '--clearenv']) assert.ok(options.includes(flag), flag);
  assert.deepEqual(options.slice(options.indexOf('--cap-drop'), options.indexOf('--cap-drop') + 2), ['--cap-drop', 'ALL']);
  assert.ok(encodeArgs(options).includes(Buffer.from('sk-test-1234567890\0')));
  assert.throws(() => encodeArgs(['a\0b']), /NUL/);
});

test('a cwd under the host /tmp that only a broad grant covers is bound over the private /tmp, with the grant\'s mode', () => {
  const { root } = layout();
  const cwd = path.join(root, 'work');
  mkdirSync(cwd);
  assert.ok(root.startsWith('/tmp/'), 'the test layout lives under /tmp');
  const all = plan(grant(true, true), { hide: [] }, cwd);
  assert.ok(all.mounts.some((m) => m.kind === 'rw' && m.dest === cwd), '-A: the cwd is there, writable');
  assert.ok(all.view.writable.includes(cwd));
  const readOnly = plan(grant(true, []), { hide: [] }, cwd);
  assert.ok(readOnly.mounts.some((m) => m.kind === 'ro' && m.dest === cwd), 'read-only grant: read-only');
  const hidden = plan(grant(true, true), { hide: [root] }, cwd);
  assert.ok(!hidden.mounts.some((m) => (m.kind === 'rw' || m.kind === 'ro') && m.dest === cwd), 'a kernel tree is never bound for it');
  assert.ok(hidden.mounts.some((m) => m.kind === 'dir' && m.dest === cwd), 'an empty folder stands in');
});

test('a kernel installed under the host /tmp: with a broad grant its helpers are still bound, and its trees inside a bound cwd stay masked', () => {
  const { root } = layout();
  assert.ok(root.startsWith('/tmp/'), 'the test layout lives under /tmp');
  const helper = path.join(root, 'install', 'init.sh');
  mkdirSync(path.dirname(helper), { recursive: true });
  writeFileSync(helper, '#!/bin/sh\n');
  const cache = path.join(root, '.cache');
  mkdirSync(cache);
  const p = planSandbox({ grant: grant(true, true), context: { hide: [cache] }, executable: '/usr/bin/sh', cwd: root, searchPath: '/usr/bin:/bin', helpers: [helper] });
  const order = p.mounts.map((m) => `${m.kind} ${'dest' in m ? m.dest : ''}`);
  // -A reads '/', but the private /tmp would hide the helper: it is bound in its own right.
  assert.ok(order.includes(`ro ${helper}`), order.join(', '));
  // The cwd is bound over the private /tmp, and the kernel's cache inside it masked on top.
  assert.ok(order.indexOf(`rw ${root}`) >= 0 && order.indexOf(`rw ${root}`) < order.indexOf(`mask-dir ${cache}`), order.join(', '));
});
