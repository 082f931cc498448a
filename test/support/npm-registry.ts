/**
 * A small npm registry for tests: serves packuments and tarballs of packages described in
 * code, so `runtimectl plugins install` (npm itself) can be exercised without the network.
 * Tarballs are made here (tar + gzip), with the sha512 integrity npm checks.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface FakePackage {
  name: string;
  version: string;
  /** files under package/, besides the package.json made from the fields below */
  files: Record<string, string>;
  main?: string;
  type?: 'module' | 'commonjs';
  dependencies?: Record<string, string>;
  gypfile?: boolean;
  /** lifecycle scripts (install never runs them: the hostile tests check) */
  scripts?: Record<string, string>;
  /** packages shipped inside the tarball (bundleDependencies) */
  bundled?: { name: string; version: string; files: Record<string, string> }[];
}

/** The package.json a fake package is published with: in its tarball and its packument alike. */
function manifestOf(pkg: FakePackage): Record<string, unknown> {
  return {
    name: pkg.name,
    version: pkg.version,
    main: pkg.main ?? 'index.js',
    ...(pkg.type ? { type: pkg.type } : {}),
    ...(pkg.dependencies || pkg.bundled ? { dependencies: { ...pkg.dependencies, ...Object.fromEntries((pkg.bundled ?? []).map((b) => [b.name, b.version])) } } : {}),
    ...(pkg.gypfile ? { gypfile: true } : {}),
    ...(pkg.scripts ? { scripts: pkg.scripts } : {}),
    ...(pkg.bundled ? { bundleDependencies: pkg.bundled.map((b) => b.name) } : {}),
  };
}

function tarHeader(name: string, size: number): Buffer {
  const header = Buffer.alloc(512, 0);
  header.write(name, 0, 100, 'utf8');
  header.write('0000644\0', 100, 8, 'ascii');
  header.write('0000000\0', 108, 8, 'ascii');
  header.write('0000000\0', 116, 8, 'ascii');
  header.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 12, 'ascii');
  header.write(`${Math.floor(Date.UTC(2020, 0, 1) / 1000).toString(8).padStart(11, '0')}\0`, 136, 12, 'ascii');
  header.write('        ', 148, 8, 'ascii');
  header.write('0', 156, 1, 'ascii');
  header.write('ustar\0', 257, 6, 'ascii');
  header.write('00', 263, 2, 'ascii');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return header;
}

export function tarball(pkg: FakePackage): Buffer {
  const files: Record<string, string> = { 'package.json': JSON.stringify(manifestOf(pkg), null, 2), ...pkg.files };
  for (const b of pkg.bundled ?? []) {
    files[`node_modules/${b.name}/package.json`] = JSON.stringify({ name: b.name, version: b.version, main: 'index.js' });
    for (const [file, text] of Object.entries(b.files)) files[`node_modules/${b.name}/${file}`] = text;
  }
  const parts: Buffer[] = [];
  for (const [file, content] of Object.entries(files)) {
    const data = Buffer.from(content, 'utf8');
    parts.push(tarHeader(`package/${file}`, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512, 0));
  }
  parts.push(Buffer.alloc(1024, 0));
  return gzipSync(Buffer.concat(parts));
}

export async function startNpmRegistry(packages: readonly FakePackage[]): Promise<{ url: string; close: () => Promise<void> }> {
  const tarballs = new Map<string, Buffer>();
  for (const p of packages) tarballs.set(`${p.name}-${p.version}`, tarball(p));
  const server = http.createServer((req, res) => {
    const port = (server.address() as AddressInfo).port;
    const url = decodeURIComponent(new URL(req.url ?? '/', `http://127.0.0.1:${port}`).pathname).replace(/^\//, '');
    if (url.startsWith('-/tarballs/')) {
      const data = tarballs.get(url.slice('-/tarballs/'.length).replace(/\.tgz$/, ''));
      if (!data) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return void res.end(data);
    }
    const versions = packages.filter((p) => p.name === url);
    if (versions.length === 0) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: 'not found' }));
    }
    const doc = {
      name: url,
      'dist-tags': { latest: versions.map((v) => v.version).sort().at(-1) },
      versions: Object.fromEntries(
        versions.map((v) => {
          const data = tarballs.get(`${v.name}-${v.version}`)!;
          return [v.version, {
            ...manifestOf(v),
            dist: { tarball: `http://127.0.0.1:${port}/-/tarballs/${v.name}-${v.version}.tgz`, integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`, shasum: createHash('sha1').update(data).digest('hex') },
          }];
        }),
      ),
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
