/**
 * `runtimectl demo` (what `npm start` runs for now): loads the first-party plugins in the
 * trusted tier, runs one through the broker with a narrow grant, shows a denial, and runs
 * a hostile script in the process tier to show the kernel surviving it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allPermissionSet } from '../../kernel/permissions/descriptors.ts';
import { PluginInstance } from '../plugin-host/plugin-instance.ts';
import { scanPlugins } from '../plugin-search/scan.ts';
import { createScriptRunner } from './runner/script-runner.ts';
import { defaultSandboxKit } from '../../sandboxes/index.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { parseFlags, type Command } from '../command/command.ts';

export const demoCommand: Command = {
  path: ['demo'],
  summary: 'show the sandbox at work on embedded defaults (what npm start runs)',
  usage: 'Usage: runtimectl demo\n\nLoads the bundled plugins, calls them through the capability broker, and runs\nhostile scripts in the process tier to show containment.\n',
  async run(argv, io) {
    parseFlags(argv, {}, 'demo', false);
    const say = (line: string) => io.stdout(`${line}\n`);
    const scan = scanPlugins();
    say(`plugins: ${scan.plugins.map((p) => `${p.manifest.id} (${p.manifest.kind}, ${p.profile.name})`).join(', ')}`);
    for (const r of scan.refused) say(`refused: ${r.error.message}`);
    const kit = defaultSandboxKit();
    const denials: string[] = [];
    const stats = scan.plugins.find((p) => p.manifest.id === 'tool.skill-stats');
    if (stats) {
      const instance = new PluginInstance(stats, { kit, allow: allPermissionSet(), cwd: PROJECT_ROOT, audit: (e) => void (e.decision === 'denied' && denials.push(`${e.op} ${e.value}`)) });
      const skill = path.join(PROJECT_ROOT, 'skills', 'shared', 'value-of-information-budgeting', 'SKILL.md');
      const result = (await instance.call('stats', { file: skill })) as { bytes: number; lines: number; headings: number };
      say(`tool.skill-stats read ${path.relative(PROJECT_ROOT, skill)}: ${result.bytes} bytes, ${result.lines} lines, ${result.headings} headings`);
      try {
        await instance.call('stats', { file: '/etc/passwd' });
      } catch (error) {
        say(`tool.skill-stats asked for /etc/passwd: refused (${(error as Error).message.split('\n')[0]})`);
      }
      instance.dispose();
    }
    const none = scan.plugins.find((p) => p.manifest.id === 'executor.none');
    if (none) {
      const instance = new PluginInstance(none, { kit, allow: allPermissionSet(), cwd: PROJECT_ROOT });
      const decision = (await instance.call('decide', { phase: 'science_patrol', budgetSource: 'none', tokensRemaining: null })) as { deferReason: string };
      say(`executor.none decided: defer (${decision.deferReason})`);
      instance.dispose();
    }
    const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-demo-'));
    const runner = await createScriptRunner();
    try {
      const hostile: [string, string][] = [
        ['escape.js', "const p = this.constructor.constructor('return this')(); console.log(typeof p.process, typeof p.require);"],
        ['loop.js', 'for (;;) {}'],
        ['bomb.js', 'const a = []; for (;;) a.push(new Array(1e6).fill(1));'],
      ];
      for (const [name, code] of hostile) {
        writeFileSync(path.join(dir, name), code);
        const r = await runner.run({ file: name, args: [], permissionFlags: [], cwd: dir, env: {}, limits: { cpuMs: 500, wallMs: 3000, memoryMb: 64 } });
        say(`hostile ${name.padEnd(10)} exit ${r.exitCode}  ${r.error?.code ?? ''} ${r.stdout.trim() || r.error?.message || ''}`.trimEnd());
      }
      writeFileSync(path.join(dir, 'ok.js'), 'console.log("still serving:", 6 * 7);');
      const after = await runner.run({ file: 'ok.js', args: [], permissionFlags: [], cwd: dir, env: {} });
      say(`after them: ${after.stdout.trim()} (kernel pid ${process.pid} alive)`);
    } finally {
      await runner.close();
      rmSync(dir, { recursive: true, force: true });
    }
    say(`audit: ${denials.length} denial(s) recorded by the broker${denials.length ? `: ${denials.join('; ')}` : ''}`);
    return 0;
  },
};
