/**
 * URL, URLSearchParams, structuredClone and DOMException come from core-js, a well-kept
 * standards polyfill. They are installed on first use: a plugin that never touches them
 * never pays for evaluating them, which keeps isolate start-up small. Names that core-js
 * installs together load together (its modules read each other's globals while loading).
 */
declare const require: (id: string) => unknown;

function defineLazyGroup(names: readonly string[], load: () => void): void {
  const g = globalThis as Record<string, unknown>;
  let loaded = false;
  const ensure = (): void => {
    if (loaded) return;
    loaded = true;
    for (const name of names) delete g[name];
    // core-js draws Math.random() once while loading (a uid postfix for its internal keys).
    // That draw is the polyfill's, not the plugin's: it gets a constant, so loading the
    // polyfill is not a broker effect, and a fresh isolate asks for the same effects as a
    // long-lived one (what replay and reboot equivalence rely on).
    const random = Math.random;
    Math.random = () => 0.5;
    try {
      load();
    } finally {
      Math.random = random;
    }
  };
  for (const name of names) {
    Object.defineProperty(g, name, {
      configurable: true,
      enumerable: false,
      get() {
        ensure();
        return g[name];
      },
      set(value: unknown) {
        ensure();
        Object.defineProperty(g, name, { value, writable: true, configurable: true, enumerable: false });
      },
    });
  }
}

export function installLazyGlobals(): void {
  defineLazyGroup(['URL', 'URLSearchParams'], () => {
    require('core-js/actual/url');
    require('core-js/actual/url-search-params');
  });
  defineLazyGroup(['DOMException', 'structuredClone'], () => {
    require('core-js/actual/dom-exception');
    require('core-js/actual/structured-clone');
  });
}
