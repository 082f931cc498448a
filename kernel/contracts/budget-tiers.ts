/**
 * The spec's six value-of-information budget tiers, by number (1-6). A pure module (no
 * imports), so a budget-policy plugin can import the names themselves into its isolate bundle.
 */
export const TIER_NAMES = [
  'read/search existing context',
  'profile a bounded external source',
  'draft or update a small artifact',
  'request review from another role',
  'run an analysis, benchmark or experiment-planning pass',
  'escalate to challenge, Senate or resource allocation',
] as const;
