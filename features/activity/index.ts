/** Activity reports: what each persona did over a window, from its event log. See README.md. */
export { activityOf, activityFromBuckets, type PersonaActivity, type DeferReasonCount } from './report.ts';
export { personaActivity, isActivityError, type ActivityEntry, type PersonaActivityError } from './collect.ts';
