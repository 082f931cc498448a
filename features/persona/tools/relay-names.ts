/**
 * The two names the tool relay is found by, in a module of their own: `mcp serve` reads them
 * before it loads anything else (features/mcp/planned-serve.ts), and the relay (tool-relay.ts)
 * loads the writer lock and its native SQLite driver.
 */

/** The variable the bridge (and `mcp serve`, `tools call`) finds the kernel's socket in. */
export const TOOLS_SOCKET_ENV = 'RUNTIMECTL_TOOLS_SOCKET';

/** `<persona>/tools-relay.json`: the pointer a running kernel writes to its operator's socket (tool-relay.ts). */
export const RELAY_POINTER_FILE = 'tools-relay.json';
