/** Tool plugins and personas the MCP tests share, written into a temp folder. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CliIo } from '../../command/command.ts';
import { toolServer } from '../../persona/tools/mcp-server.ts';
import { openToolSource } from '../tool-source.ts';
import { openLoopKernel } from '../../science-loop/preset.ts';

export const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
export const EVERYTHING = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

export function tempDir(prefix = 'rtc-mcp-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function writePlugin(root: string, folder: string, manifest: string, code?: string): void {
  const dir = path.join(root, folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'plugin.yaml'), manifest);
  if (code !== undefined) writeFileSync(path.join(dir, 'mod.ts'), code);
}

/** tool.words: count (answers), boom (throws), spin (loops past its CPU limit), peek (reads what the persona does not allow), flood (prints a lot). */
export function wordsPlugin(root: string): void {
  writePlugin(
    root,
    'tool-words',
    `id: tool.words
version: 1.0.0
kind: tool
entry: mod.ts
description: Word tools.
permissions: { read: ["/etc"] }
limits: { cpuMs: 300 }
exports: [count, boom, spin, peek]
tools:
  - export: count
    description: How many words a text has.
    input_schema: { type: object, properties: { text: { type: string } }, required: [text], additionalProperties: false }
  - export: boom
    description: Always throws.
    input_schema: { type: object }
  - export: spin
    description: Never ends.
    input_schema: { type: object }
  - export: peek
    description: Reads /etc/hostname.
    input_schema: { type: object }
`,
    `export function count(args: { text: string }) { return { words: args.text.split(/\\s+/).filter(Boolean).length, at: Date.now() }; }
export function boom() { throw new Error('the tool broke'); }
export function spin() { for (;;) {} }
export async function peek() { return { text: await Deno.readTextFile('/etc/hostname') }; }
`,
  );
}

/** A persona selecting `tools`, its profile in `dir`. */
export function toolPersona(dir: string, id: string, tools: string[], extra = '', top = ''): string {
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(
    file,
    `id: ${id}
runtime: agent-${id}
executor: { plugin: executor.none }
tools: [${tools.join(', ')}]
budget: { daily_tokens: 1000 }
allow: { read: ["\${state}"], write: ["\${state}"]${extra} }
${top}`,
  );
  return file;
}

export function testIo(cwd: string, env: Record<string, string | undefined> = {}): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { cwd, env: { PATH: process.env.PATH, HOME: os.tmpdir(), ...env }, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), out, err };
}

/** An SDK client connected in memory to `mcp serve`'s server for `persona` (its plugins in <dir>/plugins, state in <dir>/state). */
export async function connectServe(dir: string, persona: string, env: Record<string, string> = {}, log?: (line: string) => void) {
  const source = await openToolSource({ openKernel: openLoopKernel, persona, stateDir: path.join(dir, 'state'), pluginsDirs: [path.join(dir, 'plugins')], via: 'mcp' }, testIo(dir, env));
  const server = toolServer({ source, ...(log ? { log } : {}) });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(b);
  return {
    client,
    close: async () => {
      await client.close();
      await source.close();
    },
  };
}

/** The text of a tool result's content. */
export const resultText = (r: unknown): string => ((r as CallToolResult).content as { text?: string }[]).map((c) => c.text ?? '').join('');
