import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DenoOpError } from '../../kernel/broker/deno-error.ts';
import { PermissionGate } from '../../kernel/permissions/gate.ts';
import { parsePermissionFlags } from '../../kernel/permissions/parse-flags.ts';
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

test('env: exact names and suffix wildcards; run: exact command strings', () => {
  const g = gate(['--allow-env=HOME,AWS_*', '--allow-run=echo']);
  assert.equal(g.query('env', 'AWS_SECRET').state, 'granted');
  assert.equal(g.query('env', 'HOME').state, 'granted');
  assert.equal(g.query('env', 'HOMEX').state, 'prompt');
  assert.equal(g.query('run', 'echo').state, 'granted');
  assert.equal(g.query('run', '/bin/echo').state, 'prompt');
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
  assert.throws(() => parsePermissionFlags(['--allow-disk'], '/'), /unknown permission flag "--allow-disk"/);
  assert.throws(() => parsePermissionFlags(['--allow-read='], '/'), /names no values/);
});
