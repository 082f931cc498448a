// flags: (none)
// args: (none)
// TextDecoder knows every encoding of the WHATWG standard that Deno's does: the legacy
// single-byte and multi-byte ones by any of their labels, streamed across chunk boundaries,
// fatal or replacing; `replacement` and unknown labels are a RangeError.
const labels = [
  'big5', 'Big5-HKSCS', 'cn-big5', 'shift_jis', 'sjis', 'ms_kanji', 'windows-31j', 'euc-jp', 'x-euc-jp', 'iso-2022-jp', 'csiso2022jp',
  'euc-kr', 'ks_c_5601-1987', 'windows-949', 'gbk', 'gb2312', 'x-gbk', 'gb18030', 'ibm866', 'iso-8859-2', 'latin2', 'iso-8859-5',
  'iso-8859-6', 'iso-8859-7', 'greek', 'iso-8859-8', 'iso-8859-8-i', 'logical', 'iso-8859-10', 'iso-8859-13', 'iso-8859-14',
  'iso-8859-15', 'l9', 'iso-8859-16', 'koi8-r', 'koi8-u', 'macintosh', 'mac', 'x-mac-cyrillic', 'windows-874', 'tis-620',
  'windows-1250', 'windows-1251', 'cp1251', 'windows-1253', 'windows-1254', 'latin5', 'windows-1255', 'windows-1256',
  'windows-1257', 'windows-1258', 'x-user-defined', ' \tKOI8-R\n',
];
for (const label of labels) console.log(JSON.stringify(label), '->', new TextDecoder(label).encoding);
for (const label of ['replacement', 'iso-2022-kr', 'hz-gb-2312', 'csiso2022kr', 'big6', 'utf-7', 'latin9', '']) {
  try {
    new TextDecoder(label);
    console.log(label, 'accepted');
  } catch (e) {
    console.log(JSON.stringify(label), (e as Error).name, (e as Error).message);
  }
}
const samples: [string, number[]][] = [
  ['big5', [0xa4, 0xa4, 0x41, 0xa7, 0x41, 0x88, 0x62, 0x88, 0x64]],
  ['shift_jis', [0x82, 0xa0, 0x93, 0xfa, 0x96, 0x7b, 0xb1, 0x5c, 0x7e]],
  ['euc-jp', [0xa4, 0xa2, 0xc6, 0xfc, 0x8e, 0xb1, 0x8f, 0xb0, 0xa1]],
  ['iso-2022-jp', [0x1b, 0x24, 0x42, 0x24, 0x22, 0x46, 0x7c, 0x1b, 0x28, 0x42, 0x41, 0x1b, 0x28, 0x4a, 0x5c]],
  ['euc-kr', [0xb0, 0xa1, 0xc7, 0xd1, 0xb1, 0xdb]],
  ['gbk', [0xd6, 0xd0, 0xce, 0xc4, 0x80]],
  ['gb18030', [0xd6, 0xd0, 0x81, 0x30, 0x81, 0x30, 0x84, 0x31, 0xa4, 0x39]],
  ['windows-1251', [0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]],
  ['koi8-r', [0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]],
  ['iso-8859-7', [0xc1, 0xe2, 0xe3]],
  ['windows-874', [0xa1, 0xa2, 0x80]],
  ['x-user-defined', [0x41, 0x80, 0xff]],
  ['macintosh', [0x80, 0xa5, 0xdb]],
];
for (const [label, bytes] of samples) {
  const u8 = new Uint8Array(bytes);
  const whole = new TextDecoder(label).decode(u8);
  const streamed = new TextDecoder(label);
  let pieces = '';
  for (let i = 0; i < u8.length; i++) pieces += streamed.decode(u8.subarray(i, i + 1), { stream: true });
  pieces += streamed.decode();
  console.log(label, JSON.stringify(whole), [...whole].map((c) => c.codePointAt(0)!.toString(16)).join(' '), pieces === whole);
}
const invalid: [string, number[]][] = [['big5', [0xa4]], ['shift_jis', [0x82, 0x20]], ['euc-kr', [0xff]], ['gb18030', [0x81, 0x30, 0x81]], ['iso-8859-6', [0xa1]], ['iso-2022-jp', [0x1b, 0x24]], ['windows-874', [0xdb]]];
for (const [label, bytes] of invalid) {
  console.log(label, 'replacing', JSON.stringify(new TextDecoder(label).decode(new Uint8Array(bytes))));
  try {
    console.log(label, 'fatal', JSON.stringify(new TextDecoder(label, { fatal: true }).decode(new Uint8Array(bytes))));
  } catch (e) {
    console.log(label, 'fatal', (e as Error).name, (e as Error).message);
  }
}
const fatal = new TextDecoder('shift_jis', { fatal: true });
console.log(fatal.fatal, fatal.ignoreBOM, fatal.encoding, JSON.stringify(fatal.decode(new Uint8Array([0x82]), { stream: true })));
try {
  fatal.decode();
} catch (e) {
  console.log('incomplete at the end', (e as Error).name);
}
console.log('after a fatal error the decoder starts afresh', JSON.stringify(fatal.decode(new Uint8Array([0x82, 0xa0]))));
console.log(JSON.stringify(new TextDecoder('big5').decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))));
console.log(JSON.stringify(new TextDecoder('gbk').decode(new Uint8Array([0xa4, 0xa4]).buffer)));
// The same words for UTF-8 and UTF-16, whole or streamed.
for (const [label, bytes] of [['utf-8', [0xc0]], ['utf-8', [0xed, 0xa0, 0x80]], ['utf-16le', [0x41]], ['utf-16be', [0xdc, 0x00]]] as [string, number[]][]) {
  try {
    new TextDecoder(label, { fatal: true }).decode(new Uint8Array(bytes));
  } catch (e) {
    console.log(label, (e as Error).name, JSON.stringify((e as Error).message));
  }
}
try {
  const d = new TextDecoder('utf-8', { fatal: true });
  d.decode(new Uint8Array([0xe2, 0x82]), { stream: true });
  d.decode();
} catch (e) {
  console.log('utf-8 streamed', JSON.stringify((e as Error).message));
}
