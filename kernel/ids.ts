/**
 * The id rules, once: a persona id, a plugin id and the plain names the manifests use. Every
 * schema, path check and CLI argument check reads them from here (a persona id names a folder
 * under the state directory, a skills folder and rows in a shared database; a plugin id is
 * matched in profiles, harnesses, manifests and the substrate record). Imports nothing, so
 * any module (a sandbox, the review queue's schema, a manifest) can take it.
 */

/** A persona id: one plain path segment of lowercase letters, digits, `-` and `_`, at most 63 characters. */
export const PERSONA_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** A plugin id: dotted lowercase segments, such as `executor.codex` or `step.phase-least-recent`. */
export const PLUGIN_ID_PATTERN = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/;

/** A plain name (a runtime target, a harness id): the persona id's shape. */
export const PLAIN_NAME_PATTERN = PERSONA_ID_PATTERN;
