/**
 * Token usage and the last message, parsed from what the CLIs really print:
 *
 * - `codex exec --json` writes JSON lines on stdout: `turn.completed` carries
 *   `usage.{input_tokens, cached_input_tokens, output_tokens}` (cached input is part of
 *   input), and `item.completed` with `item.type: "agent_message"` carries the reply text.
 *   The usage is the thread's running total, so the last `turn.completed` wins.
 * - codex without `--json` (and older versions) prints `tokens used` on stderr, followed by
 *   the total on the same line (`tokens used: 1234`) or on the next one (`tokens used\n1,234`).
 * - `claude -p --output-format stream-json --verbose` ends with a `result` message whose
 *   `usage` has input_tokens, output_tokens, cache_read_input_tokens and
 *   cache_creation_input_tokens (none of them part of another) and whose `result` is the reply.
 *
 * Unknown fields and lines that are not JSON are skipped, never an error.
 */
import type { Usage } from './contract.ts';

export interface Parsed {
  usage: Usage | null;
  lastMessage: string;
  /** an error the CLI itself reported (a failed turn, an error result) */
  error?: string;
}

type Json = Record<string, unknown>;

function jsonLines(text: string): Json[] {
  const out: Json[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) continue;
    try {
      const value = JSON.parse(trimmed) as unknown;
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) out.push(value as Json);
    } catch {
      // not JSON: a log line or a partial write; skip it
    }
  }
  return out;
}

function n(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function obj(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

export function emptyUsage(source: string): Usage {
  return { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, total_tokens: 0, source };
}

/** codex `--json` stdout. */
export function parseCodexJson(stdout: string): Parsed {
  let usage: Usage | null = null;
  let lastMessage = '';
  let error: string | undefined;
  for (const event of jsonLines(stdout)) {
    const type = event.type;
    if (type === 'turn.completed') {
      const u = obj(event.usage);
      if (u) {
        const input = n(u.input_tokens);
        const output = n(u.output_tokens);
        usage = {
          ...emptyUsage('codex-json'),
          input_tokens: input,
          cached_input_tokens: n(u.cached_input_tokens),
          output_tokens: output,
          reasoning_tokens: n(u.reasoning_output_tokens ?? u.reasoning_tokens),
          total_tokens: n(u.total_tokens) || input + output,
        };
      }
    } else if (type === 'item.completed') {
      const item = obj(event.item);
      if (item && (item.type === 'agent_message' || item.item_type === 'assistant_message') && typeof item.text === 'string') lastMessage = item.text;
    } else if (type === 'turn.failed') {
      const e = obj(event.error);
      error = typeof e?.message === 'string' ? e.message : 'turn failed';
    } else if (type === 'error' && typeof event.message === 'string') {
      error = event.message;
    }
  }
  return { usage, lastMessage, ...(error !== undefined ? { error } : {}) };
}

// ANSI colour codes, which codex adds when stderr is a terminal.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** codex's plain `tokens used` lines on stderr: the total only; the last report wins. */
export function parseCodexTokensUsed(stderr: string): Usage | null {
  const lines = stderr.replace(ANSI, '').split('\n');
  let total: number | undefined;
  for (let i = 0; i < lines.length; i++) {
    const match = /tokens used\b[:\s]*([\d,_]*)/i.exec(lines[i] ?? '');
    if (!match) continue;
    let digits = match[1] ?? '';
    if (digits === '') {
      const next = lines.slice(i + 1).find((l) => l.trim() !== '');
      const m = next === undefined ? null : /^\s*([\d,_]+)\s*$/.exec(next);
      digits = m?.[1] ?? '';
    }
    const value = Number(digits.replace(/[,_]/g, ''));
    if (digits !== '' && Number.isFinite(value)) total = value;
  }
  return total === undefined ? null : { ...emptyUsage('codex-stderr'), total_tokens: total };
}

/** Everything codex printed: JSON events first, the stderr total when there are none. */
export function parseCodex(stdout: string, stderr: string): Parsed {
  const parsed = parseCodexJson(stdout);
  if (parsed.usage === null) parsed.usage = parseCodexTokensUsed(stderr);
  return parsed;
}

/** claude `-p --output-format stream-json --verbose` stdout. */
export function parseClaude(stdout: string): Parsed {
  let usage: Usage | null = null;
  let lastMessage = '';
  let error: string | undefined;
  for (const event of jsonLines(stdout)) {
    if (event.type === 'assistant') {
      const content = obj(event.message)?.content;
      if (Array.isArray(content)) {
        const texts = content.map(obj).filter((c) => c?.type === 'text' && typeof c.text === 'string').map((c) => c!.text as string);
        if (texts.length > 0) lastMessage = texts.join('\n');
      }
    } else if (event.type === 'result') {
      const u = obj(event.usage);
      if (u) {
        const input = n(u.input_tokens);
        const output = n(u.output_tokens);
        const read = n(u.cache_read_input_tokens);
        const created = n(u.cache_creation_input_tokens);
        usage = { ...emptyUsage('claude-result'), input_tokens: input, output_tokens: output, cache_read_input_tokens: read, cache_creation_input_tokens: created, total_tokens: input + output + read + created };
      }
      if (typeof event.result === 'string') lastMessage = event.result;
      if (event.is_error === true) error = typeof event.result === 'string' && event.result !== '' ? event.result : String(event.subtype ?? 'error result');
    }
  }
  return { usage, lastMessage, ...(error !== undefined ? { error } : {}) };
}

/** The parsers a configured command may name. */
export const PARSERS: Record<string, (stdout: string, stderr: string) => Parsed> = {
  'codex-json': parseCodex,
  'claude-stream-json': (stdout) => parseClaude(stdout),
  'codex-stderr': (_stdout, stderr) => ({ usage: parseCodexTokensUsed(stderr), lastMessage: '' }),
  none: (stdout) => ({ usage: null, lastMessage: lastLines(stdout) }),
};

/** The tail of plain output, as the last message of a command that prints no JSON. */
export function lastLines(text: string, max = 2000): string {
  const trimmed = text.trimEnd();
  return trimmed.length > max ? trimmed.slice(trimmed.length - max) : trimmed;
}
