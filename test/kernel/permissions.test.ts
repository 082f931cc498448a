import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DenoOpError } from '../../kernel/broker/deno-error.ts';
import { PermissionGate } from '../../kernel/permissions/gate.ts';
import { flagsLayer, parsePermissionFlags } from '../../features/sandbox-run/permission-flags.ts';
import { resolveRunLayer } from '../../kernel/permissions/run-grants.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allPermissionSet } from '../../kernel/permissions/descriptors.ts';

const gate = (flags: string[], cwd = '/work') => new PermissionGate([{ label: 'flags', set: parsePermissionFlags(flags, cwd) }]);

test('read: a granted folder covers what is beneath it, not its siblings; relative flags resolve against cwd', () => {
  const g = gate(['--allow-read=./data'], '/w');
  assert.equal(g.query('read', '/w/data/x/y.txt').state, 'granted');
  assert.equal(g.query('read', '/w/data').state, 'granted');
  assert.equal(g.query('read', '/w/data2/x').state, 'prompt');
  assert.equal(g.query('read', '/w').state, 'prompt');
});

test('deny wins over allow, in any layer', () => {
  const g = gate(['--allow-read', '--deny-read=/etc']);
  assert.equal(g.query('read', '/etc/passwd').state, 'denied');
  assert.equal(g.query('read', '/tmp/x').state, 'granted');
  const layered = new PermissionGate([
    { label: 'flags', set: parsePermissionFlags(['-A'], '/') },
    { label: 'ceiling', set: parsePermissionFlags(['--allow-read=/srv'], '/') },
  ]);
  assert.equal(layered.query('read', '/srv/a').state, 'granted');
  assert.equal(layered.query('read', '/etc/a').state, 'prompt');
  assert.equal(layered.query('read', '/etc/a').refusedBy, 'ceiling');
  assert.equal(layered.query('net', 'example.com:443').state, 'prompt');
});

test('net: host without port covers all ports; host:port only that one; *.domain covers subdomains and the bare domain', () => {
  const g = gate(['--allow-net=localhost:8080,example.org,*.example.com']);
  assert.equal(g.query('net', 'localhost:8080').state, 'granted');
  assert.equal(g.query('net', 'localhost:9090').state, 'prompt');
  assert.equal(g.query('net', 'example.org:443').state, 'granted');
  assert.equal(g.query('net', 'a.b.example.com:443').state, 'granted');
  assert.equal(g.query('net', 'example.com:80').state, 'granted');
  assert.equal(g.query('net', 'badexample.com:80').state, 'prompt');
});

test('env: exact names and suffix wildcards', () => {
  const g = gate(['--allow-env=HOME,AWS_*']);
  assert.equal(g.query('env', 'AWS_SECRET').state, 'granted');
  assert.equal(g.query('env', 'HOME').state, 'granted');
  assert.equal(g.query('env', 'HOMEX').state, 'prompt');
});

test('run: a name grants the program it resolves to on the PATH at start, only that path; a deny name matches any path to that file', () => {
  const bin = mkdtempSync(path.join(os.tmpdir(), 'rtc-bin-'));
  writeFileSync(path.join(bin, 'tool'), '#!/bin/sh\n', { mode: 0o755 });
  const layer = resolveRunLayer({ label: 'flags', set: parsePermissionFlags(['--allow-run=tool,absent', '--deny-run=id'], '/w') }, `/nonexistent:${bin}`, '/w');
  assert.deepEqual(layer.set.run.allow, [path.join(bin, 'tool')], 'the name is replaced by what it resolved to; one not found grants nothing');
  const g = new PermissionGate([layer]);
  assert.equal(g.query('run', path.join(bin, 'tool')).state, 'granted');
  assert.equal(g.query('run', 'tool').state, 'prompt', 'the bare name is not a grant');
  assert.equal(g.query('run', '/elsewhere/tool').state, 'prompt');
  const all = new PermissionGate([resolveRunLayer({ label: 'flags', set: parsePermissionFlags(['--allow-run', '--deny-run=id'], '/w') }, '', '/w')]);
  for (const p of ['/usr/bin/id', '/bin/id', '/x/id.sh', '/x/ID']) assert.equal(all.query('run', p).state, 'denied', p);
  assert.equal(all.query('run', '/x/idle').state, 'granted');
  assert.equal(all.query('run', '/x/link', ['/usr/bin/id']).state, 'denied', 'a link whose target is id is id');
});

test('revoke follows Deno: a value removes every allow entry covering it, a kind clears it, a whole-kind grant keeps specific revokes', () => {
  const g = gate(['--allow-read=/a,/b/c', '--allow-env=HOME,USER']);
  assert.equal(g.revoke('read', '/a/x/y').state, 'prompt');
  assert.equal(g.query('read', '/a').state, 'prompt');
  assert.equal(g.query('read', '/a/z').state, 'prompt', 'a sibling beneath the revoked folder goes too (the covering entry was removed)');
  assert.equal(g.query('read', '/b/c').state, 'granted');
  assert.equal(g.revoke('read', '/b').state, 'prompt');
  assert.equal(g.query('read', '/b/c').state, 'granted', 'an entry beneath the revoked value stays, as in Deno');
  g.revoke('env');
  assert.equal(g.query('env', 'USER').state, 'prompt');
  const whole = gate(['-R']);
  assert.equal(whole.revoke('read', '/etc').state, 'granted');
  assert.equal(whole.revoke('read').state, 'prompt');
  assert.equal(whole.query('read', '/etc/x').state, 'prompt');
});

test('allowsAll is -A, not every kind granted one by one, and not -A narrowed by any layer', () => {
  const a = new PermissionGate([flagsLayer(['-A'], '/')]);
  assert.equal(a.allowsAll(), true);
  assert.equal(new PermissionGate([flagsLayer(['-R', '-W', '-N', '-E', '--allow-run'], '/')]).allowsAll(), false);
  assert.equal(new PermissionGate([flagsLayer(['-A', '--deny-read=/x'], '/')]).allowsAll(), false);
  assert.equal(new PermissionGate([flagsLayer(['-A'], '/'), { label: 'ceiling', set: parsePermissionFlags(['-R', '-W'], '/') }]).allowsAll(), false);
  a.revoke('net');
  assert.equal(a.allowsAll(), false);
});

test('a refusal is NotCapable with Deno\'s message', () => {
  const g = gate([]);
  assert.throws(() => g.check('read', '/x'), (e: unknown) => e instanceof DenoOpError && e.denoClass === 'NotCapable' && e.message === 'Requires read access to "/x", run again with the --allow-read flag');
  assert.throws(() => g.check('env'), (e: unknown) => e instanceof DenoOpError && e.message === 'Requires env access, run again with the --allow-env flag');
});

test('sys, ffi and import are never granted, even with -A', () => {
  const g = new PermissionGate([{ label: 'all', set: allPermissionSet() }]);
  assert.equal(g.query('ffi').state, 'denied');
  assert.equal(g.query('read', '/anything').state, 'granted');
});

test('malformed flags are refused with the flag named', () => {
  assert.throws(() => parsePermissionFlags(['--allow-disk'], '/'), { code: 'RTC_ERR_PERMISSION_FLAG', message: /unknown permission flag "--allow-disk"/ });
  assert.throws(() => parsePermissionFlags(['--allow-read='], '/'), { code: 'RTC_ERR_PERMISSION_FLAG', message: /names no values/ });
});
