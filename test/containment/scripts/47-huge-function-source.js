// @attack: compiling a 100 MB function body with new Function, then eval.
// @expect: MEMORY CRASHED CPU error
const body = 'return ' + '1+'.repeat(5e7) + '1';
const f = new Function(body);
console.log(f());
console.log(eval(body.slice(7)));
