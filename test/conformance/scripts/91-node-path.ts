// flags: (none)
// args: (none)
// node:path (posix) and node:path/posix: pure functions, as Deno computes them.
import path from 'node:path';
import posix from 'node:path/posix';
import { basename, join } from 'path';
console.log(path.join('/a', 'b', '../c', './d'), join('a', '', 'b/'), path.join());
console.log(path.resolve('/x', 'y', '..', 'z'), path.resolve('/a/b', '/c'), path.isAbsolute('/a'), path.isAbsolute('a'));
console.log(path.normalize('/a//b/../c/.'), path.normalize(''), path.normalize('a/../../b'));
console.log(path.relative('/data/orandea/test/aaa', '/data/orandea/impl/bbb'), JSON.stringify(path.relative('/a', '/a')));
console.log(path.dirname('/a/b/c.txt'), path.dirname('a'), path.dirname('/'), basename('/a/b.txt', '.txt'), path.basename('/a/b/'));
console.log(path.extname('f.tar.gz'), JSON.stringify(path.extname('.bashrc')), path.extname('a.'), JSON.stringify(path.extname('a')));
console.log(JSON.stringify(path.parse('/home/u/file.txt')), path.format({ dir: '/x', name: 'f', ext: '.md' }), path.format({ root: '/', base: 'b.c' }));
console.log(path.sep, path.delimiter, posix === path.posix, path.posix.sep, path.win32.sep, path.win32.delimiter, path.toNamespacedPath('/a'));
console.log(typeof path.resolve('relative') === 'string', path.resolve('relative').endsWith('/relative'));
