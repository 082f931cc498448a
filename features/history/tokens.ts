/**
 * Tokens an event payload records as spent, found at any depth.
 *
 * An object is a usage record when it carries a per-call usage field as a number
 * (input_tokens, output_tokens, total_tokens, cache_read_input_tokens,
 * cache_creation_input_tokens). It counts once: its total_tokens when present, else
 * input + output + cache creation + cache reads (providers that report no total report cache
 * traffic beside input_tokens). cached_input_tokens, cached_tokens and reasoning_tokens are
 * parts of input or output, never added again; nothing inside a usage record is counted twice.
 * Window figures (tokens_used_24h, tokens_remaining_24h) are running totals the loop reports
 * about the budget, not spending, and are never summed.
 */

const RECORD_FIELDS = ['input_tokens', 'output_tokens', 'total_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const;

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function isUsageRecord(value: Record<string, unknown>): boolean {
  return RECORD_FIELDS.some((field) => typeof value[field] === 'number');
}

function recordTokens(value: Record<string, unknown>): number {
  if (typeof value.total_tokens === 'number') return count(value.total_tokens);
  return count(value.input_tokens) + count(value.output_tokens) + count(value.cache_creation_input_tokens) + count(value.cache_read_input_tokens);
}

export function tokensIn(value: unknown, depth = 0): number {
  if (depth > 64 || value === null || typeof value !== 'object') return 0;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + tokensIn(item, depth + 1), 0);
  const record = value as Record<string, unknown>;
  if (isUsageRecord(record)) return recordTokens(record);
  let sum = 0;
  for (const child of Object.values(record)) sum += tokensIn(child, depth + 1);
  return sum;
}
