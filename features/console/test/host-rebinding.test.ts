/**
 * Issue 27 item 9e: the console checks every request's Host, whatever it is bound to. A page
 * on a domain the attacker controls can point that domain at the console's address (DNS
 * rebinding); the browser then sends the attacker's name as Host. So on every bind (loopback,
 * 0.0.0.0, ::, a host name) a Host is answered only when its port is the console's and its
 * name is the bound address, a loopback name, an IP address (on a non-loopback bind) or a name
 * the operator allowed (`serve --allow-host`); each variant an attacker can send is refused
 * before any page is read. Requests are raw HTTP, so every Host spelling reaches the server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startConsole } from '../server.ts';
import { runCli } from '../../../test/support/cli.ts';
import { tempDir } from './helpers.ts';

/** One raw request: `host` as the Host line (null: none at all). */
function raw(port: number, connectTo: string, host: string | null): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, connectTo, () => {
      socket.write(`GET / HTTP/1.1\r\n${host === null ? '' : `Host: ${host}\r\n`}Connection: close\r\n\r\n`);
    });
    let data = '';
    socket.on('data', (d) => (data += d));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0), body: data }));
    socket.on('error', reject);
  });
}

function stateDir(): string {
  const dir = path.join(tempDir('rtc-host-'), 'state');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** What a rebinding page (or anyone) may send, and must be refused, for a console on `port`. */
function attacks(port: number): string[] {
  return [
    `evil.example:${port}`,
    'evil.example',
    `evil.example.:${port}`,
    `EVIL.EXAMPLE:${port}`,
    `127.0.0.1.evil.example:${port}`,
    `localhost.evil.example:${port}`,
    `console.lab.evil.example:${port}`,
    `xconsole.lab:${port}`,
    `localhost:${port + 1}`,
    `127.0.0.1:${port + 1}`,
    `[::1]:${port + 1}`,
    `localhost`,
    `0x7f000001:${port}`,
    `2130706433:${port}`,
    `127.1:${port}`,
    `user@localhost:${port}`,
    `localhost:${port}/x`,
    `localhost:${port}:${port}`,
    '',
  ];
}

const BINDS: { bind: string; connect: string; addressOk: boolean }[] = [
  { bind: '127.0.0.1', connect: '127.0.0.1', addressOk: false },
  { bind: '0.0.0.0', connect: '127.0.0.1', addressOk: true },
  { bind: '::', connect: '::1', addressOk: true },
  { bind: 'localhost', connect: '127.0.0.1', addressOk: false },
];

for (const { bind, connect, addressOk } of BINDS) {
  test(`bound to ${bind}: every rebinding Host is refused before a page is read; the console's own names are answered`, async () => {
    const running = await startConsole({ stateDir: stateDir(), host: bind, port: 0, allowHosts: ['console.lab'] });
    try {
      const port = running.console.bind.port;
      for (const host of attacks(port)) {
        const r = await raw(port, connect, host);
        assert.equal(r.status, 400, `Host ${JSON.stringify(host)} on ${bind}: ${r.body.slice(-700)}`);
        // (a Host the HTTP layer cannot even make a URL of is refused by it, with no page at all)
        if (r.body.includes('<html')) assert.match(r.body, /RTC_ERR_CONSOLE_REQUEST: host &quot;/, host);
        assert.doesNotMatch(r.body, /<h1>Fleet<\/h1>/, `no page was read for ${host}`);
      }
      const missing = await raw(port, connect, null);
      assert.notEqual(missing.status, 200, 'a request without a Host is never answered with a page');
      const ok = [`localhost:${port}`, `LOCALHOST:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `console.lab:${port}`, `console.lab.:${port}`];
      if (addressOk) ok.push(`10.1.2.3:${port}`, `[fe80::1]:${port}`);
      for (const host of ok) {
        const r = await raw(port, connect, host);
        assert.equal(r.status, 200, `Host ${host} on ${bind}: ${r.body.slice(-700)}`);
        assert.match(r.body, /<h1>Fleet<\/h1>/);
      }
      // On a loopback bind an address that is not loopback is not one of its names.
      if (!addressOk) assert.equal((await raw(port, connect, `10.1.2.3:${port}`)).status, 400);
    } finally {
      await running.close();
    }
  });
}

test('serve --allow-host takes host names only: a port, a scheme or a wildcard is a usage error', async () => {
  for (const bad of ['console.lab:8080', 'http://console.lab', '*.lab', 'a b', '']) {
    const r = await runCli(['serve', '--state-dir', stateDir(), '--port', '0', '--allow-host', bad]);
    assert.equal(r.status, 2, bad);
    assert.match(r.stderr, /^runtimectl: RTC_ERR_CLI_USAGE: --allow-host "[^"]*": a host name such as console\.lab\.example \(no port, no scheme\)\n$/, bad);
  }
});
