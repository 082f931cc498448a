/** Where a persona's event log lives: `<state>/<persona-id>/logs/events.jsonl`. */
import path from 'node:path';

export const EVENT_LOG_RELATIVE = path.join('logs', 'events.jsonl');

export function eventLogPath(stateDir: string, personaId: string): string {
  return path.join(stateDir, personaId, EVENT_LOG_RELATIVE);
}
