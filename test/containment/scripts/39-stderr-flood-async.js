// @attack: an output flood on stderr, spread over timers so no single CPU stretch is long.
// @expect: OUTPUT
// @tier: trusted
const line = 'err '.repeat(1000);
function burst() {
  for (let i = 0; i < 50; i++) console.error(line);
  setTimeout(burst, 0);
}
burst();
