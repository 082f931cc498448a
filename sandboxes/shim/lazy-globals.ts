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
    load();
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
