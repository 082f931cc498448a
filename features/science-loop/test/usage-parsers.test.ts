import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseClaude, parseCodex, parseCodexJson, parseCodexTokensUsed } from '../../../plugins/executor-shared/usage.ts';

test('codex --json: the last turn.completed usage wins, the last agent_message is the reply, unknown fields and junk lines are skipped', () => {
  const stdout = [
    '{"type":"thread.started","thread_id":"t"}',
    'WARN something on stdout that is not JSON',
    '{"type":"item.completed","item":{"id":"i0","type":"agent_message","text":"first"}}',
    '{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":10}}',
    '{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"second"}}',
    '{"type":"turn.completed","usage":{"input_tokens":300,"cached_input_tokens":200,"output_tokens":50,"reasoning_output_tokens":20,"brand_new":{"x":1}}}',
    '{"type":"turn.completed","usage":"not an object"}',
    '{"truncated":',
  ].join('\n');
  const parsed = parseCodexJson(stdout);
  assert.deepEqual(parsed.usage, { input_tokens: 300, cached_input_tokens: 200, output_tokens: 50, reasoning_tokens: 20, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, total_tokens: 350, source: 'codex-json' });
  assert.equal(parsed.lastMessage, 'second');
  assert.equal(parsed.error, undefined);
});

test('codex --json: a failed turn is reported as an error', () => {
  const parsed = parseCodexJson('{"type":"turn.failed","error":{"message":"rate limited"}}\n');
  assert.equal(parsed.error, 'rate limited');
  assert.equal(parsed.usage, null);
});

test('codex "tokens used" on stderr: on the next line with separators, on the same line, with colour codes; the last one wins', () => {
  assert.equal(parseCodexTokensUsed('codex\nsome reply\ntokens used\n12,345\n')?.total_tokens, 12345);
  assert.equal(parseCodexTokensUsed('[2025-08-01T10:00:00] tokens used: 4321\n')?.total_tokens, 4321);
  assert.equal(parseCodexTokensUsed('\u001b[2mtokens used\u001b[0m\n\n7,002\n')?.total_tokens, 7002);
  assert.equal(parseCodexTokensUsed('tokens used: 10\n...\ntokens used: 25\n')?.total_tokens, 25);
  assert.equal(parseCodexTokensUsed('no usage here\n'), null);
  assert.equal(parseCodexTokensUsed('tokens used\nnot a number\n'), null);
  // JSON events take precedence; stderr is the fallback
  assert.equal(parseCodex('{"type":"turn.completed","usage":{"input_tokens":5,"output_tokens":5}}', 'tokens used\n999')?.usage?.total_tokens, 10);
  assert.equal(parseCodex('plain text', 'tokens used\n999')?.usage?.source, 'codex-stderr');
});

test('claude stream-json: the result message gives usage (cache reads and writes counted) and the reply; an error result is an error', () => {
  const stdout = [
    '{"type":"system","subtype":"init","session_id":"s"}',
    '{"type":"assistant","message":{"content":[{"type":"text","text":"thinking aloud"},{"type":"tool_use","name":"Read"}]}}',
    '{"type":"result","subtype":"success","is_error":false,"result":"done","usage":{"input_tokens":10,"cache_creation_input_tokens":500,"cache_read_input_tokens":12000,"output_tokens":250,"server_tool_use":{"web_search_requests":0},"service_tier":"standard"}}',
  ].join('\n');
  const parsed = parseClaude(stdout);
  assert.deepEqual(parsed.usage, { input_tokens: 10, cached_input_tokens: 0, output_tokens: 250, reasoning_tokens: 0, cache_read_input_tokens: 12000, cache_creation_input_tokens: 500, total_tokens: 12760, source: 'claude-result' });
  assert.equal(parsed.lastMessage, 'done');
  const failed = parseClaude('{"type":"result","subtype":"error_max_turns","is_error":true,"usage":{"input_tokens":1,"output_tokens":1}}');
  assert.equal(failed.error, 'error_max_turns');
  assert.equal(failed.usage?.total_tokens, 2);
  // no result message (killed early): the last assistant text, no usage
  assert.deepEqual(parseClaude('{"type":"assistant","message":{"content":[{"type":"text","text":"partial"}]}}'), { usage: null, lastMessage: 'partial' });
});
