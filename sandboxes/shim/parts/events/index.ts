/**
 * DOM events as Deno has them, installed as globals when a script first touches one:
 * `Event` and its subclasses, `EventTarget`, `AbortController`/`AbortSignal`, and the global
 * scope as an event target (`addEventListener` on globalThis, `reportError`, `onerror`...).
 */
import { defineGlobal } from '../../parts-loader.ts';
import { AbortController, AbortSignal } from './abort.ts';
import { CloseEvent, CustomEvent, ErrorEvent, Event, MessageEvent, ProgressEvent, PromiseRejectionEvent } from './event.ts';
import { EventTarget, defineEventHandler, reportException } from './target.ts';
import { requireArgs } from './event.ts';
import { EVENT_HANDLER_TYPES } from '../../lazy-globals.ts';

export { AbortController, AbortSignal, abortSignal, followSignal, newAbortSignal } from './abort.ts';
export { CloseEvent, CustomEvent, ErrorEvent, Event, MessageEvent, ProgressEvent, PromiseRejectionEvent, requireArgs } from './event.ts';
export { EventTarget, defineEventHandler, reportException } from './target.ts';

defineGlobal('Event', Event);
defineGlobal('EventTarget', EventTarget);
defineGlobal('CustomEvent', CustomEvent);
defineGlobal('ErrorEvent', ErrorEvent);
defineGlobal('MessageEvent', MessageEvent);
defineGlobal('CloseEvent', CloseEvent);
defineGlobal('ProgressEvent', ProgressEvent);
defineGlobal('PromiseRejectionEvent', PromiseRejectionEvent);
defineGlobal('AbortController', AbortController);
defineGlobal('AbortSignal', AbortSignal);
// The global scope inherits the event methods: Window.prototype → EventTarget.prototype (window.ts).
const windowPrototype = Object.getPrototypeOf(globalThis) as object | null;
if (windowPrototype && windowPrototype !== EventTarget.prototype) Object.setPrototypeOf(windowPrototype, EventTarget.prototype);
defineGlobal('reportError', function reportError(error: unknown): void {
  requireArgs(arguments.length, 1, 'reportError', 'Window');
  reportException(error);
});
for (const type of EVENT_HANDLER_TYPES) defineEventHandler(globalThis, type);
