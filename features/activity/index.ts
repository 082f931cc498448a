/** Activity reports: what each persona did over a window, from its event log. See README.md. */
export { activityOf, cycleOutcome, isSession, reasonKey, CYCLE_EVENT, SESSION_EVENT, type PersonaActivity, type DeferReasonCount } from './report.ts';
export { personaActivity, isActivityError, type ActivityEntry, type PersonaActivityError } from './collect.ts';
export { tokensIn } from './tokens.ts';
export { parseSince } from './window.ts';
