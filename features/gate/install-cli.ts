/**
 * `runtimectl skills install PACKAGE --digest D`: a skill draft the gate accepted, installed
 * from its verified evidence package (skill-install.ts). The verb is the gate's, not the skills
 * feature's, because it trusts nothing but the gate's evidence: the gate reads skills, and the
 * skills feature never reads the gate.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { shownPath } from '../../kernel/shown-path.ts';
import { parseFlags, printJson, type Command } from '../command/command.ts';
import { REPO_SKILLS_DIR, SKILLS_PATH_ENV } from '../skills/layout.ts';
import { installSkill } from './skill-install.ts';

const INSTALL_USAGE = `Usage: runtimectl skills install PACKAGE --digest sha256:HEX [--persona ID] [--dir DIR] [--json]

Installs a skill draft a gate accepted, from its evidence package (PACKAGE: the gate's --out
folder, or its manifest.json): the package is verified first (every file against its manifest,
the manifest against --digest: the digest the skill-draft proposal recorded), its verdict must be
"accepted", and the skill is copied from the package's snapshot of the draft (never from the
draft folder), each file checked against its digest as it is written, the folder put in place
whole. A tampered, rejected or incomplete package is refused with one line, and nothing is
written. A skill of that name already installed with the same files is left as it is; with
other files it is refused.

Options:
  --digest sha256:HEX  required: manifest.json's digest as the gate printed it ("evidence: ...")
                       and the proposal recorded it (proposals show ID); the manifest is not
                       covered by its own file digests, so without it its verdict could be edited
  --persona ID         install as the persona's own skill: <dir>/persona/ID/<name>/ (default:
                       a shared skill, <dir>/shared/<name>/)
  --dir DIR            the skills folder (default: the first of $RUNTIMECTL_SKILLS_PATH, else the
                       built-in skills/)
  --json               {skill, id, dir, files, manifest_digest, input_digest, already_installed}

Then select it in the persona's profile (skills: [NAME]) and restart the persona: skills are
loaded when a persona starts.
`;

export const skillsInstallCommand: Command = {
  path: ['skills', 'install'],
  summary: 'install a skill a gate accepted, from its verified evidence package',
  usage: INSTALL_USAGE,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { digest: { type: 'string' }, persona: { type: 'string' }, dir: { type: 'string' }, json: { type: 'boolean' } }, 'skills install');
    if (positionals.length !== 1) throw kernelError('RTC_ERR_CLI_USAGE', `name one evidence PACKAGE (the gate's --out folder), got ${positionals.length}; see "runtimectl skills install --help"`);
    if (values.digest === undefined) throw kernelError('RTC_ERR_CLI_USAGE', '--digest sha256:HEX is required: the digest the gate printed after "evidence:" (and the proposal recorded); the package is checked against it; see "runtimectl skills install --help"');
    const pkg = path.resolve(io.cwd, positionals[0]!);
    if (!existsSync(pkg)) throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `${positionals[0]}: no such evidence package`);
    const fromEnv = (io.env[SKILLS_PATH_ENV] ?? '').split(':').map((d) => d.trim()).find((d) => d !== '');
    const dir = values.dir !== undefined ? path.resolve(io.cwd, values.dir) : fromEnv !== undefined ? path.resolve(io.cwd, fromEnv) : REPO_SKILLS_DIR;
    if (existsSync(dir) && !statSync(dir).isDirectory()) throw kernelError('RTC_ERR_CLI_USAGE', `${values.dir ?? dir}: not a folder`);
    const result = await installSkill({ package: pkg, skillsDir: dir, shown: positionals[0]!, digest: values.digest, ...(values.persona ? { persona: values.persona } : {}) });
    if (values.json) {
      printJson(io, { ...result, dir: shownPath(result.dir, io.cwd) });
      return 0;
    }
    io.stdout(`${result.already_installed ? 'already installed' : 'installed'}: skill ${result.id} in ${shownPath(result.dir, io.cwd)} (${result.files} file(s), from the evidence ${result.manifest_digest})\n`);
    const extra = dir === REPO_SKILLS_DIR || dir === (fromEnv && path.resolve(io.cwd, fromEnv)) ? '' : `, run with --skills-dir ${shownPath(dir, io.cwd)} (or add it to $${SKILLS_PATH_ENV})`;
    io.stdout(`next: select it in the persona's profile (skills: [${result.skill}])${extra}, then restart the persona\n`);
    return 0;
  },
};
