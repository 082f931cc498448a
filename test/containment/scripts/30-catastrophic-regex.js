// @attack: catastrophic backtracking: /(a+)+$/ on 'aaaa…!' (exponential in the length).
// @expect: CPU WALL
// @tier: trusted
const input = 'a'.repeat(48) + '!';
console.log(/(a+)+$/.test(input));
