// The MCP server an executor's harness starts (features/mcp/harness-server.ts): it pipes its
// stdin to the running kernel's tool relay socket ($RUNTIMECTL_TOOLS_SOCKET) and the socket
// to its stdout, nothing else. The kernel speaks MCP on that socket itself, framed as MCP's
// stdio transport is (one JSON-RPC message a line), so bytes pass through unchanged: no
// second runtimectl runs in the session, and the sandbox needs to let the harness read only
// this file and node. `mcp serve` runs the same file in its own process to reach a running
// kernel (features/mcp/cli.ts).
//
// Dependency-free on purpose (only node:net): it must start in a few milliseconds.
// The socket missing or refused, or failing after it connected: one line on stderr, exit 1.
// The kernel closed the connection, or the client closed stdin: exit 0.
import net from 'node:net';

const ENV = 'RUNTIMECTL_TOOLS_SOCKET';
const socketPath = process.env[ENV];

function fail(line) {
  process.stderr.write(`runtimectl bridge: ${line}\n`);
  process.exit(1);
}

if (!socketPath) {
  fail(`${ENV} is not set: it names the running kernel's tool relay socket`);
} else {
  const socket = net.connect(socketPath);
  let connected = false;
  socket.once('connect', () => {
    connected = true;
    process.stdin.pipe(socket);
    socket.pipe(process.stdout);
  });
  socket.on('error', (error) => {
    const why = error.code ?? error.message;
    if (!connected) fail(`cannot reach the kernel's tool relay at ${socketPath} (${ENV}): ${why}`);
    // a session cut off mid-way is not a clean end: the agent's client must see it failed
    else fail(`lost the kernel's tool relay at ${socketPath} (${ENV}): ${why}`);
  });
  socket.on('close', () => process.exit(0));
  // the client went away: the kernel sees the end of the session
  process.stdin.on('end', () => socket.end());
  process.stdout.on('error', () => process.exit(0));
}
