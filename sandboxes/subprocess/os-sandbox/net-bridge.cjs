// Runs inside the OS sandbox, started by init.sh when the grant names any host. The
// sandbox has no network of its own: this listens on the sandbox's private loopback
// (HTTP(S)_PROXY points here) and hands every connection, unread, to the kernel's proxy on
// the Unix socket bound into the sandbox, which checks and audits it. Plain CommonJS with no
// imports beyond node's own, so it starts fast and depends on nothing in the repository.
'use strict';
const fs = require('node:fs');
const net = require('node:net');

const [socketPath, port, readyFile] = process.argv.slice(2);
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.pipe(upstream);
  upstream.pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
});
server.on('error', (error) => {
  process.stderr.write(`runtimectl sandbox: the network bridge cannot listen: ${error.message}\n`);
  process.exit(1);
});
server.listen(Number(port), '127.0.0.1', () => fs.writeFileSync(readyFile, ''));
// The sandbox ends with its command; a TERM for the whole sandbox ends the bridge too.
process.on('SIGTERM', () => process.exit(0));
