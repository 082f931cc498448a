// @attack: node:module's createRequire, to load Node's own modules (or any file) by CommonJS
// @attack: require at run time, outside the bundle. The sandbox does not offer node:module: the
// @attack: build refuses it with one line naming it.
// @expect: error
// @error-match: node:module.*does not offer
// @tier: trusted
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const fs = require('fs');
fs.writeFileSync('/tmp/rtc-escaped-72', 'createRequire');
console.log(['ESC', 'APED'].join('') + ' via createRequire');
