// @attack: each timer callback burns 300 ms of CPU (under the 1000 ms per-stretch limit) and
// @attack: schedules the next: total CPU grows without bound, only the wall limit stops it.
// @expect: WALL CPU
// @tier: trusted
function burn() {
  const end = Date.now() + 300;
  while (Date.now() < end) {}
  setTimeout(burn, 0);
}
burn();
