/**
 * The two shapes a step gets from the loop about where the persona lives and how host paths
 * leave what it logs. The implementations (personaPaths, ensureBrainLayout, hostPathScrubber)
 * are features/persona-layout.
 */

/** A persona's files under the state directory (features/persona-layout/layout.ts lays them out). */
export interface PersonaPaths {
  stateDir: string;
  dir: string;
  brainDir: string;
  memoryDir: string;
  brainFile: string;
  longTermFile: string;
  sessionsDir: string;
  workspaceRoot: string;
  artifactsDir: string;
  orchestraDir: string;
  inboxDir: string;
  dmQueueFile: string;
  logFile: string;
}

/** Replaces host paths by placeholders at any depth (features/persona-layout/host-paths.ts). */
export type PathScrubber = <T>(value: T) => T;
