/**
 * `logs` text lines say what each event says, never its type twice (issue 24 item 2): review
 * records, alerts, trust changes and tool calls in words; any other event its own fields.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventGist, eventLine } from '../format.ts';
import type { EventEnvelope } from '../../../kernel/events/envelope.ts';

const envelope = (type: string, payload: Record<string, unknown>, seq = 7): EventEnvelope => ({ v: 1, seq, type, payload, prev: '0'.repeat(64), hash: 'f'.repeat(64), at: '2026-03-01T12:00:00.000Z' }) as EventEnvelope;

test('every kind of event reads as what it says, never "type type"', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['operator_alert', { alert: 'decision_not_ratified', message: 'P-ada-1 was recorded as accepted by bob but is not applied: not trusted', id: 'P-ada-1', proposal_log_seq: 4 }, /^ALERT decision_not_ratified: P-ada-1 was recorded as accepted by bob but is not applied: not trusted$/],
    ['operator_alert', { alert: 'review_backpressure', message: 'a memory-promotion proposal from plugin:x was refused (max_pending): 20 open' }, /^ALERT review_backpressure: a memory-promotion proposal from plugin:x was refused/],
    [
      'proposal_submitted',
      { proposal: { id: 'P-ada-1', kind: 'memory-promotion', proposer: 'agent:executor.codex', origin: { via: 'mcp', run_id: 'c000004-codex', cycle: 4 }, content: { text: 'Assay B\nseparates A from B.' }, expires_at: 0 } },
      /^P-ada-1 memory-promotion proposed by agent:executor\.codex \(via mcp, session c000004-codex, cycle 4\): "Assay B separates A from B\."; expires 1970-01-01T00:00:00\.000Z$/,
    ],
    ['proposal_state', { id: 'P-ada-1', from: 'pending', to: 'accepted', by: 'alice', reason: 'seen twice', ratification: { scheme: 'ed25519' }, mirrored: true }, /^P-ada-1 pending → accepted by alice \(signed\): seen twice$/],
    ['proposal_state', { id: 'P-ada-2', from: 'pending', to: 'accepted', by: 'mallory' }, /^P-ada-2 pending → accepted by mallory \(unsigned\)$/],
    ['proposal_state', { id: 'P-ada-3', from: 'pending', to: 'expired', by: 'review-queue', reason: 'undecided at its expiry' }, /^P-ada-3 pending → expired by review-queue: undecided at its expiry$/],
    ['proposal_refused', { kind: 'memory-promotion', proposer: 'plugin:x', reason: 'proposer_rate_limit', observed: 5, limit: 5, window_seconds: 3600 }, /^a memory-promotion proposal from plugin:x refused \(proposer_rate_limit: 5 against a limit of 5 in 3600s\)$/],
    ['proposal_input_refused', { proposer: 'plugin:x', origin: { via: 'binding', plugin: 'x', cycle: 2 }, reason: 'too_large', message: 'proposal: 600061 bytes' }, /^a proposal from plugin:x \(via binding, cycle 2\) refused \(too_large\): proposal: 600061 bytes$/],
    ['proposal_applied', { id: 'P-ada-1', kind: 'memory-promotion', accepted_by: 'alice', effect: { status: 'applied', bytes: 80, file: 'brain/memory/long-term.md' } }, /^P-ada-1 \(memory-promotion, accepted by alice\) applied: appended 80 bytes to brain\/memory\/long-term\.md$/],
    ['proposal_applied', { id: 'P-ada-2', kind: 'skill-draft', accepted_by: 'alice', effect: { status: 'awaiting-operator', action: 'install skill x' } }, /^P-ada-2 \(skill-draft, accepted by alice\) applied: awaiting operator: install skill x$/],
    ['operator_trust_changed', { file: 'operators.json', operators: [{ name: 'alice' }, { name: 'bob' }] }, /^the operator trust list \(operators\.json\) changed: trusted now alice, bob$/],
    ['operator_trust_changed', { file: 'operators.json', operators: [], error: 'RTC_ERR_MANIFEST_YAML: operators.json:1:2: bad' }, /^ALERT the operator trust list \(operators\.json\) cannot be read: RTC_ERR_MANIFEST_YAML: operators\.json:1:2: bad; no accepted proposal is applied until it is fixed$/],
    ['tool_call', { tool: 'review.propose', via: 'mcp', cycle: 3, ok: false, error: 'RTC_ERR_REVIEW_EVIDENCE: evidence "x" is not a file' }, /^review\.propose via mcp \(cycle 3\): failed: RTC_ERR_REVIEW_EVIDENCE: evidence "x" is not a file$/],
    ['reboot', { previous_start_seq: 3, unfinished: { cycle: 2 } }, /^previous_start_seq=3 unfinished=\{"cycle":2\}$/],
    ['history_seal_failed', { log: 'review/proposals.jsonl', reason: 'disk full' }, /^disk full; log=review\/proposals\.jsonl$/],
    ['plugin.note', { note: 'two words', plugin: 'executor.x', persona_id: 'ada' }, /^note="two words" plugin=executor\.x$/],
    ['empty_thing', {}, /^\(no details\)$/],
  ];
  for (const [type, payload, expected] of cases) {
    const gist = eventGist({ type, payload });
    assert.match(gist, expected, `${type}: ${gist}`);
    const line = eventLine('ada', envelope(type, payload));
    assert.ok(!line.includes(`${type} ${type}`), `${type} is not repeated: ${line}`);
    assert.ok(line.startsWith(`2026-03-01T12:00:00.000Z ada #7 ${type} `));
  }
});

test("a cycle's line says what its boundary applied and held, what was proposed and refused, and its alerts", () => {
  const gist = eventGist({
    type: 'continuous_loop_cycle',
    payload: { cycle: 4, phase: 'science_patrol', outcome: 'idle', defer_reason: 'nothing to do', review: { applied: ['P-ada-1'], expired: [], held: [{ id: 'P-ada-2', reason: 'x' }], queued: ['P-ada-3'], refused: 2, alerts: [{ alert: 'decision_not_ratified' }] } },
  });
  assert.equal(gist, 'cycle #4 science_patrol idle: nothing to do [applied P-ada-1; HELD P-ada-2; proposed P-ada-3; 2 proposal(s) refused; 1 ALERT(S)]');
});
