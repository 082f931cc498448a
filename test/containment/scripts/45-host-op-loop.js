// @attack: an endless loop of awaited host operations (each denied): the isolate is idle between
// @attack: them, so isolated-vm's own timeout never counts the time spent waiting.
// @expect: WALL CPU
// @tier: trusted
for (;;) {
  await Deno.stat('/').catch(() => {});
  await Deno.readTextFile('/etc/hostname').catch(() => {});
}
