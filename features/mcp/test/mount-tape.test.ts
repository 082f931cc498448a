/**
 * A mounted server's call on the broker's tape (features/mcp/mount/mcp-mount.ts): a failed call
 * is recorded with the kernel's code as data beside the message, and replay throws the same
 * coded error back without starting a server. The code is never read back out of the text.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { RecordingTape, ReplayTape } from '../../cycle-recording/tape.ts';
import { isKernelError } from '../../../kernel/errors.ts';
import { emptyPermissionSet } from '../../../kernel/permissions/descriptors.ts';
import { loadPlugin } from '../../plugin-search/scan.ts';
import { McpMount, MCP_CALL_OP } from '../mount/mcp-mount.ts';
import { tempDir, writePlugin } from './fixtures.ts';

const NODE = process.execPath;

function mount(dir: string): McpMount {
  writePlugin(dir, 'tool-denied', `id: tool.denied
version: 1.0.0
kind: tool
description: A mounted MCP server the persona does not allow to run.
permissions: { run: [${JSON.stringify(NODE)}] }
mcp:
  command: ${JSON.stringify(NODE)}
  args: ["server.js"]
`);
  // the persona allows nothing: starting the server is refused before any process is made
  return new McpMount(loadPlugin(path.join(dir, 'tool-denied')), { allow: emptyPermissionSet(), vars: {}, env: {}, cwd: dir });
}

async function refusal(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  assert.fail('the call was not refused');
}

test("a refused call is recorded with its code as data, and replay throws the same coded error without starting a server", async () => {
  const dir = tempDir();
  const recording = mount(dir);
  const tape = new RecordingTape();
  recording.broker.context.tape = tape;
  const recorded = await refusal(recording.call('echo', { a: 1 }));
  assert.ok(isKernelError(recorded));
  assert.equal(recorded.code, 'RTC_ERR_TOOL_DENIED');
  const effect = tape.effects[0]!;
  assert.equal(effect.op, MCP_CALL_OP);
  const answer = JSON.parse(effect.answer) as { err: { code?: string; message: string } };
  assert.deepEqual(answer.err, { code: 'RTC_ERR_TOOL_DENIED', message: recorded.message });
  assert.ok(!answer.err.message.startsWith('RTC_ERR_'), 'the message does not carry the code');

  const replaying = mount(dir);
  replaying.broker.context.tape = new ReplayTape(tape.effects, 'the test');
  const replayed = await refusal(replaying.call('echo', { a: 1 }));
  assert.ok(isKernelError(replayed));
  assert.equal(replayed.code, 'RTC_ERR_TOOL_DENIED');
  assert.equal(replayed.message, recorded.message);
  assert.equal(replaying.builds, 0, 'no server was started');
});

test('a recorded error without a code is thrown back as a plain error, whatever its text says', async () => {
  const dir = tempDir();
  const replaying = mount(dir);
  const asked = JSON.stringify({ tool: 'echo', arguments: {} });
  replaying.broker.context.tape = new ReplayTape([{ i: 0, op: MCP_CALL_OP, args: asked, answer: JSON.stringify({ err: { message: 'RTC_ERR_TOOL_DENIED: only text' } }) }], 'the test');
  const replayed = await refusal(replaying.call('echo', {}));
  assert.ok(!isKernelError(replayed));
  assert.equal((replayed as Error).message, 'RTC_ERR_TOOL_DENIED: only text');
});
