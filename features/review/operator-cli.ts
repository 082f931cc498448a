/**
 * `runtimectl operator init|trust|show`: the operator credential that signs review decisions
 * (features/review-queue/operators.ts). `init` makes this operator's key pair and trusts it; `trust`
 * adds another operator's public key; `show` prints the name, the fingerprint, the public key
 * and the trust list.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { initOperator, loadOperatorKey, loadOperatorTrust, OPERATOR_HOME_ENV, OPERATOR_KEY_FILE, operatorHome, publicKeyPem, trustOperator } from '../review-queue/operators.ts';
import { parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';

const GROUP_USAGE = `Usage: runtimectl operator <command> [options]

The operator credential: an Ed25519 key that signs every review decision (proposals accept,
reject, start-review). The loop applies an accepted proposal only when its decision is signed
by a trusted operator. The private key stays in your config folder (${OPERATOR_HOME_ENV}, else
$XDG_CONFIG_HOME/runtimectl, else ~/.config/runtimectl), mode 0600, outside every state
directory; no persona's environment or grant ever includes it.

Commands:
  init --name NAME                        make your key pair and trust it
  trust --name NAME --public-key FILE     trust another operator's public key (PEM)
  show [--json]                           your name, fingerprint and public key; the trust list
`;

export const operatorCommand: Command = {
  path: ['operator'],
  summary: 'the operator credential that signs review decisions: init, trust, show',
  usage: GROUP_USAGE,
  async run() {
    throw kernelError('RTC_ERR_CLI_USAGE', 'name an operator command: init, trust, show; see "runtimectl operator --help"');
  },
};

export const operatorInitCommand: Command = {
  path: ['operator', 'init'],
  summary: 'make this operator\'s signing key and trust it',
  usage: `Usage: runtimectl operator init --name NAME [--json]

Creates ${OPERATOR_KEY_FILE} (mode 0600) in the operator folder and adds its public key to the
trust list (operators.json) beside it. Refused when a key is already there. A kernel already
running with this folder re-reads the trust list at each persona's next cycle boundary: no
restart is needed for your decisions to take effect.
`,
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values } = parseFlags(argv, { name: { type: 'string' }, json: { type: 'boolean' } }, 'operator init', false);
    if (values.name === undefined) throw kernelError('RTC_ERR_CLI_USAGE', '--name NAME is required (decisions are recorded under it); see "runtimectl operator init --help"');
    const key = initOperator(io.env, values.name);
    const home = operatorHome(io.env);
    if (values.json) printJson(io, { name: key.name, fingerprint: key.fingerprint, key_file: path.join(home, OPERATOR_KEY_FILE), public_key: publicKeyPem(key) });
    else io.stdout(`operator ${key.name}: key ${key.fingerprint}\n  private key: ${path.join(home, OPERATOR_KEY_FILE)} (mode 0600; keep it out of every state directory)\n  trusted in:  ${path.join(home, 'operators.json')} (a kernel running with this folder re-reads it at each persona's next cycle boundary)\n`);
    return 0;
  },
};

export const operatorTrustCommand: Command = {
  path: ['operator', 'trust'],
  summary: "trust another operator's public key",
  usage: `Usage: runtimectl operator trust --name NAME --public-key FILE [--json]

Adds (or replaces, by name) a trusted operator in operators.json. FILE is the PEM that
"runtimectl operator show" prints on that operator's machine. A running kernel takes the change
at each persona's next cycle boundary (a list it cannot read holds every accepted proposal,
loudly, until it is fixed).
`,
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values } = parseFlags(argv, { name: { type: 'string' }, 'public-key': { type: 'string' }, json: { type: 'boolean' } }, 'operator trust', false);
    if (values.name === undefined || values['public-key'] === undefined) throw kernelError('RTC_ERR_CLI_USAGE', '--name NAME and --public-key FILE are required; see "runtimectl operator trust --help"');
    let pem: string;
    try {
      pem = readFileSync(path.resolve(io.cwd, values['public-key']), 'utf8');
    } catch {
      throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `--public-key ${values['public-key']}: no such file`);
    }
    const trusted = trustOperator(io.env, values.name, pem);
    if (values.json) printJson(io, { name: trusted.name, fingerprint: trusted.fingerprint });
    else io.stdout(`trusted operator ${trusted.name}: key ${trusted.fingerprint} (a running kernel takes it at each persona's next cycle boundary)\n`);
    return 0;
  },
};

export const operatorShowCommand: Command = {
  path: ['operator', 'show'],
  summary: 'this operator\'s name, fingerprint and public key, and the trust list',
  usage: 'Usage: runtimectl operator show [--json]\n',
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values } = parseFlags(argv, { json: { type: 'boolean' } }, 'operator show', false);
    const key = loadOperatorKey(io.env);
    const trust = loadOperatorTrust(io.env);
    const trusted = trust.operators.map((o) => ({ name: o.name, fingerprint: o.fingerprint }));
    if (values.json) printJson(io, { name: key.name, fingerprint: key.fingerprint, public_key: publicKeyPem(key), trusted });
    else {
      io.stdout(`operator ${key.name}: key ${key.fingerprint}\n${publicKeyPem(key)}`);
      io.stdout(`trusted (${trust.source}):\n${trusted.map((o) => `  ${o.name}  ${o.fingerprint}\n`).join('') || '  none\n'}`);
    }
    return 0;
  },
};

export const OPERATOR_CLI_COMMANDS: readonly Command[] = [operatorCommand, operatorInitCommand, operatorTrustCommand, operatorShowCommand];
