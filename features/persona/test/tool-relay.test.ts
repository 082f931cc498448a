/**
 * The kernel's tool relay speaks MCP on its socket (issue 25, item 5), over a real Unix socket:
 * runtimectl's own client gets a tool's value and a kernel error with its code; a request may
 * name who it is from only as the socket allows (an agent's socket takes `mcp` alone); a line
 * that is not JSON, or JSON that is not a JSON-RPC message, is answered with a JSON-RPC error
 * and the session goes on. (The handler here is a plain object: the relay's whole contract with
 * the runtime; the end-to-end path with the persona's runtime is features/mcp/test.)
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { isKernelError, kernelError } from '../../../kernel/errors.ts';
import { RelayClient } from '../tools/relay-client.ts';
import { ToolRelay, type RelayHandler, type RelayVia } from '../tools/tool-relay.ts';

function handler(seen: { name: string; via: RelayVia }[]): RelayHandler {
  return {
    list: async () => ({ tools: [{ name: 'echo', plugin: 'tool.echo', export: 'echo', source: 'plugin', description: 'Echoes.', input_schema: { type: 'object' } }], problems: [] }),
    call: async (name, args, via) => {
      seen.push({ name, via });
      if (name !== 'echo') throw kernelError('RTC_ERR_TOOL_UNKNOWN', `no tool ${name}`);
      return args;
    },
  };
}

test('an agent\'s relay: values and coded errors over MCP; only mcp calls', async () => {
  const seen: { name: string; via: RelayVia }[] = [];
  const relay = new ToolRelay(handler(seen), { vias: ['mcp'] });
  await relay.listening;
  const client = await RelayClient.connect(relay.socketPath);
  try {
    assert.deepEqual((await client.list()).tools.map((t) => [t.name, t.plugin]), [['echo', 'tool.echo']]);
    assert.deepEqual(await client.call('echo', { a: [1, 2] }), { a: [1, 2] });
    await assert.rejects(client.call('nope', {}), (e: unknown) => isKernelError(e) && e.code === 'RTC_ERR_TOOL_UNKNOWN' && /no tool nope/.test(e.message));
    // an agent cannot label its calls an operator's
    await assert.rejects(client.call('echo', {}, 'cli'), (e: unknown) => isKernelError(e) && e.code === 'RTC_ERR_TOOL_ARGS' && /takes calls from mcp, not "cli"/.test(e.message));
    assert.deepEqual(seen, [{ name: 'echo', via: 'mcp' }, { name: 'nope', via: 'mcp' }]);
  } finally {
    await client.close();
    await relay.close();
  }
});

test('the operator\'s relay takes cli calls too', async () => {
  const seen: { name: string; via: RelayVia }[] = [];
  const relay = new ToolRelay(handler(seen), { vias: ['mcp', 'cli'] });
  await relay.listening;
  const client = await RelayClient.connect(relay.socketPath);
  try {
    await client.call('echo', {}, 'cli');
    await client.call('echo', {});
    assert.deepEqual(seen.map((s) => s.via), ['cli', 'mcp']);
  } finally {
    await client.close();
    await relay.close();
  }
});

test('garbage on the socket: a JSON-RPC error with id null, and the session goes on', async () => {
  const relay = new ToolRelay(handler([]), { vias: ['mcp'] });
  await relay.listening;
  const socket = net.connect(relay.socketPath);
  const lines: Record<string, any>[] = [];
  let buffer = '';
  const next = () =>
    new Promise<Record<string, any>>((resolve) => {
      const take = () => {
        const at = buffer.indexOf('\n');
        if (at < 0) return socket.once('data', (d: Buffer) => ((buffer += d.toString()), take()));
        const line = JSON.parse(buffer.slice(0, at));
        buffer = buffer.slice(at + 1);
        lines.push(line);
        resolve(line);
      };
      take();
    });
  try {
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('this is not JSON\n');
    assert.deepEqual(await next(), { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not JSON' } });
    socket.write('{"hello":"world"}\n');
    assert.equal((await next()).error.code, -32600);
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' })}\n`);
    assert.deepEqual(await next(), { jsonrpc: '2.0', id: 7, result: {} });
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'nope', arguments: {} } })}\n`);
    const refused = await next();
    assert.equal(refused.result.isError, true);
    assert.equal(refused.result._meta['runtimectl/error'].code, 'RTC_ERR_TOOL_UNKNOWN');
  } finally {
    socket.destroy();
    await relay.close();
  }
});
