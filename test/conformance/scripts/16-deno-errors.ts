// flags: (none)
// args: (none)
// The Deno.errors classes: the full set, and that each is a named Error subclass.
console.log(Object.keys(Deno.errors).sort().join(','));
for (const name of ['NotCapable', 'NotFound', 'AlreadyExists', 'PermissionDenied', 'IsADirectory', 'NotADirectory', 'InvalidData', 'TimedOut', 'BadResource', 'Http']) {
  const Cls = (Deno.errors as unknown as Record<string, new (m: string) => Error>)[name];
  if (!Cls) {
    console.log(name, 'missing');
    continue;
  }
  const e = new Cls(`made ${name}`);
  console.log(name, typeof Cls, e instanceof Error, e.name, e.message);
}
const nf = new Deno.errors.NotFound('x');
console.log(nf instanceof Deno.errors.NotFound, nf instanceof Deno.errors.AlreadyExists);
console.log(typeof nf.stack);
