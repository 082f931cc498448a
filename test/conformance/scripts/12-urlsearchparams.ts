// flags: (none)
// args: (none)
// URLSearchParams: parse, get/getAll/has, append/set/delete, sort, iteration, encoding.
const p = new URLSearchParams('?a=1&b=two&a=3&c=%20space+plus&empty=');
console.log(p.get('a'), JSON.stringify(p.getAll('a')), p.has('b'), p.get('missing'));
console.log(JSON.stringify(p.get('c')), JSON.stringify(p.get('empty')));
p.append('d', 'x y/z?&=');
p.set('b', 'replaced');
p.delete('empty');
console.log(p.toString());
p.sort();
console.log(p.toString());
for (const [k, v] of p) console.log(k, '=>', v);
console.log(JSON.stringify([...p.keys()]), p.size);
console.log(new URLSearchParams({ x: '1', y: 'é' }).toString());
console.log(new URLSearchParams([['k', 'v1'], ['k', 'v2']]).toString());
