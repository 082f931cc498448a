// @attack: a WebAssembly function that loops forever (`loop br 0`), called synchronously.
// @expect: CPU WALL error
// @tier: trusted
// (module (func (export "spin") (loop (br 0))))
const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 7, 8, 1, 4, 115, 112, 105, 110, 0, 0, 10, 9, 1, 7, 0, 3, 64, 12, 0, 11, 11]);
const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes));
exports.spin();
