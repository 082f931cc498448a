/** `console`: writes through the host (stdout for log/info/debug, stderr for error/warn). */
import { callSync } from '../host.ts';
import { formatArgs, inspect } from './inspect.ts';

function write(fd: 1 | 2, text: string): void {
  callSync('io.write', { fd, text });
}

export function makeConsole(now: () => number): Console {
  const counts = new Map<string, number>();
  const timers = new Map<string, number>();
  let groupIndent = '';
  const line = (fd: 1 | 2, args: unknown[]): void => {
    const text = formatArgs(args);
    write(fd, `${groupIndent ? text.split('\n').map((l) => groupIndent + l).join('\n') : text}\n`);
  };
  const consoleObject = {
    log: (...args: unknown[]) => line(1, args),
    info: (...args: unknown[]) => line(1, args),
    debug: (...args: unknown[]) => line(1, args),
    error: (...args: unknown[]) => line(2, args),
    warn: (...args: unknown[]) => line(2, args),
    trace: (...args: unknown[]) => line(2, ['Trace:', ...args]),
    dir: (value: unknown) => line(1, [inspect(value)]),
    dirxml: (...args: unknown[]) => line(1, args),
    table: (...args: unknown[]) => line(1, args),
    assert: (condition: unknown, ...args: unknown[]) => {
      if (!condition) line(2, args.length === 0 ? ['Assertion failed'] : typeof args[0] === 'string' ? [`Assertion failed: ${args[0]}`, ...args.slice(1)] : ['Assertion failed:', ...args]);
    },
    count: (label = 'default') => {
      const next = (counts.get(label) ?? 0) + 1;
      counts.set(label, next);
      line(1, [`${label}: ${next}`]);
    },
    countReset: (label = 'default') => void counts.set(label, 0),
    time: (label = 'default') => void timers.set(label, now()),
    timeLog: (label = 'default', ...args: unknown[]) => line(1, [`${label}: ${(now() - (timers.get(label) ?? now())).toFixed(0)}ms`, ...args]),
    timeEnd: (label = 'default') => {
      line(1, [`${label}: ${(now() - (timers.get(label) ?? now())).toFixed(0)}ms`]);
      timers.delete(label);
    },
    group: (...args: unknown[]) => {
      if (args.length > 0) line(1, args);
      groupIndent += '    ';
    },
    groupCollapsed: (...args: unknown[]) => consoleObject.group(...args),
    groupEnd: () => void (groupIndent = groupIndent.slice(4)),
    clear: () => undefined,
  };
  return consoleObject as unknown as Console;
}
