/** RFC 3492 decoding of one punycode label (what `url.domainToUnicode` needs). */
const base = 36;
const tMin = 1;
const tMax = 26;
const skew = 38;
const damp = 700;

function adapt(delta: number, numPoints: number, firstTime: boolean): number {
  let d = firstTime ? Math.floor(delta / damp) : delta >> 1;
  d += Math.floor(d / numPoints);
  let k = 0;
  while (d > ((base - tMin) * tMax) >> 1) {
    d = Math.floor(d / (base - tMin));
    k += base;
  }
  return k + Math.floor(((base - tMin + 1) * d) / (d + skew));
}

function digit(code: number): number {
  if (code >= 0x30 && code < 0x3a) return code - 22;
  if (code >= 0x41 && code < 0x5b) return code - 0x41;
  if (code >= 0x61 && code < 0x7b) return code - 0x61;
  return base;
}

export function punycodeToUnicode(input: string): string {
  const output: number[] = [];
  let n = 128;
  let i = 0;
  let bias = 72;
  const basic = input.lastIndexOf('-');
  for (let j = 0; j < Math.max(basic, 0); j++) output.push(input.charCodeAt(j));
  for (let index = basic > 0 ? basic + 1 : 0; index < input.length;) {
    const oldi = i;
    for (let w = 1, k = base; ; k += base) {
      if (index >= input.length) return input;
      const d = digit(input.charCodeAt(index++));
      if (d >= base) return input;
      i += d * w;
      const t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias;
      if (d < t) break;
      w *= base - t;
    }
    bias = adapt(i - oldi, output.length + 1, oldi === 0);
    n += Math.floor(i / (output.length + 1));
    i %= output.length + 1;
    output.splice(i++, 0, n);
  }
  return String.fromCodePoint(...output);
}
