// flags: (none)
// args: (none)
// performance: mark/measure, the entry buffer, timeOrigin, toJSON, Performance* classes and errors.
const show = (label: string, fn: () => unknown) => {
  try {
    console.log(label, 'ok', fn());
  } catch (e) {
    console.log(label, (e as Error).name, (e as Error).message);
  }
};
console.log(performance.timeOrigin > 1e12, typeof performance.now(), Object.keys(performance.toJSON()), performance.toJSON().timeOrigin === performance.timeOrigin);
const mark = performance.mark('start', { detail: { step: 1 } });
console.log(mark instanceof PerformanceMark, mark instanceof PerformanceEntry, mark.name, mark.entryType, mark.duration, mark.detail, mark.startTime > 0);
console.log(Object.keys(mark.toJSON()));
performance.mark('start');
performance.mark('end', { startTime: 5 });
console.log(performance.getEntriesByName('start').length, performance.getEntriesByType('mark').length, performance.getEntries().length);
const between = performance.measure('span', 'end', 'end');
console.log(between.entryType, between.duration, between.startTime, between.detail);
console.log(performance.measure('opts', { start: 1, end: 4 }).duration, performance.measure('dur', { start: 'end', duration: 5 }).duration, performance.measure('detail', { detail: 'd', start: 0, end: 2 }).detail);
show('missing mark', () => performance.measure('m', 'nope'));
show('three options', () => performance.measure('m', { start: 1, end: 2, duration: 3 }));
show('options and end', () => performance.measure('m', { start: 1 }, 'end'));
show('negative start', () => performance.mark('n', { startTime: -1 }));
show('no name', () => (performance.mark as unknown as () => unknown)());
show('new Performance', () => new (Performance as unknown as new () => unknown)());
show('new PerformanceEntry', () => new (PerformanceEntry as unknown as new () => unknown)());
show('new PerformanceMeasure', () => new (PerformanceMeasure as unknown as new () => unknown)());
show('new PerformanceMark', () => new PerformanceMark('x', { startTime: 2 }).startTime);
performance.clearMarks('start');
console.log(performance.getEntriesByType('mark').map((e) => e.name));
performance.clearMeasures();
performance.clearMarks();
console.log(performance.getEntries().length, performance instanceof EventTarget, Object.prototype.toString.call(performance));
show('setResourceTimingBufferSize()', () => (performance.setResourceTimingBufferSize as unknown as () => void)());
console.log(PerformanceObserver.supportedEntryTypes);
console.log(new PerformanceMark('shown', { startTime: 3, detail: [1] }));
