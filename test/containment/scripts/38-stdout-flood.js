// @attack: an output flood: console.log in an endless loop.
// @expect: OUTPUT
// @tier: trusted
const line = 'flood '.repeat(100);
for (;;) console.log(line);
