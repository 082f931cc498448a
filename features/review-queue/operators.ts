/**
 * The operator credential: what makes a review decision an operator's and not a persona's.
 *
 * An operator has an Ed25519 key pair. The private key lives in the operator's own config
 * folder (`$RUNTIMECTL_OPERATOR_HOME`, else `$XDG_CONFIG_HOME/runtimectl`, else
 * `~/.config/runtimectl`): `operator-key.json`, mode 0600. It is never in a persona's
 * environment (the kernel hands plugins only the variables their profile names, and never
 * RUNTIMECTL_OPERATOR_*), never in the state directory (a config folder inside it is
 * refused), and never granted to a plugin. `runtimectl proposals accept|reject|start-review`
 * signs each decision with it.
 *
 * The kernel needs only public keys to check a decision: `operators.json` in the same folder
 * is the trust list (`runtimectl operator init` adds your own key, `operator trust` another
 * operator's). A decision is ratified when its signature verifies under a trusted key whose
 * name is the decision's `by` (ratify.ts); the loop checks that again when it applies one.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { kernelError } from '../../kernel/errors.ts';
import { parseYaml, readManifestText, validateManifest } from '../../kernel/manifest/load.ts';
import { replaceFileDurably } from '../persistence/state/persona-storage.ts';
import { checkSecretFile, createSecretFile } from './secret-file.ts';
import { actorSchema } from './records.ts';

export const OPERATOR_HOME_ENV = 'RUNTIMECTL_OPERATOR_HOME';
export const OPERATOR_KEY_FILE = 'operator-key.json';
export const TRUST_FILE = 'operators.json';

const keyFileSchema = z.strictObject({
  format: z.literal('runtimectl.operator-key/1'),
  name: actorSchema,
  private_key: z.string().min(1).describe('PKCS#8 PEM of an Ed25519 private key'),
});

const trustFileSchema = z.strictObject({
  format: z.literal('runtimectl.operators/1'),
  operators: z.array(z.strictObject({ name: actorSchema, public_key: z.string().min(1), fingerprint: z.string().regex(/^sha256:[0-9a-f]{64}$/) })),
});

export interface OperatorKey {
  name: string;
  fingerprint: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export interface TrustedOperator {
  name: string;
  fingerprint: string;
  publicKey: KeyObject;
}

export interface OperatorTrust {
  /** where the list came from (for messages) */
  source: string;
  operators: TrustedOperator[];
  /**
   * Why the list could not be read, when a running kernel re-read it and found it broken
   * (trust-source.ts): nothing is ratified then. A kernel refuses to start on a broken list.
   */
  error?: string;
}

/** The operator's config folder for this environment. */
export function operatorHome(env: Readonly<Record<string, string | undefined>>): string {
  const explicit = env[OPERATOR_HOME_ENV]?.trim();
  if (explicit) return path.resolve(explicit);
  const xdg = env.XDG_CONFIG_HOME?.trim();
  return path.join(xdg ? path.resolve(xdg) : path.join(env.HOME?.trim() || os.homedir(), '.config'), 'runtimectl');
}

/** sha256 of the raw 32-byte public key, as `sha256:<hex>`. */
export function keyFingerprint(publicKey: KeyObject): string {
  const raw = publicKey.export({ format: 'der', type: 'spki' });
  return `sha256:${createHash('sha256').update(raw).digest('hex')}`;
}

function publicPem(key: KeyObject): string {
  return key.export({ format: 'pem', type: 'spki' }).toString();
}

function readJson<S extends z.ZodType>(schema: S, file: string): z.output<S> {
  return validateManifest(schema, parseYaml(readManifestText(file, file), file), file);
}

/** The trust list (empty when there is none): the public keys whose signatures ratify. */
export function loadOperatorTrust(env: Readonly<Record<string, string | undefined>>): OperatorTrust {
  const file = trustFile(env);
  if (!existsSync(file)) return { source: file, operators: [] };
  return parseOperatorTrust(readManifestText(file, file), file);
}

/** Where this environment's trust list is (`<operator folder>/operators.json`). */
export function trustFile(env: Readonly<Record<string, string | undefined>>): string {
  return path.join(operatorHome(env), TRUST_FILE);
}

/** A trust list's text, checked: the format, each key an Ed25519 public key whose fingerprint is the one recorded. */
export function parseOperatorTrust(text: string, file: string): OperatorTrust {
  const doc = validateManifest(trustFileSchema, parseYaml(text, file), file);
  const operators = doc.operators.map((o) => {
    let publicKey: KeyObject;
    try {
      publicKey = createPublicKey(o.public_key);
    } catch {
      throw kernelError('RTC_ERR_REVIEW_OPERATOR', `${file}: operator ${o.name}: public_key is not a public key in PEM`);
    }
    if (publicKey.asymmetricKeyType !== 'ed25519') throw kernelError('RTC_ERR_REVIEW_OPERATOR', `${file}: operator ${o.name}: the key is ${publicKey.asymmetricKeyType}, not ed25519`);
    const fingerprint = keyFingerprint(publicKey);
    if (fingerprint !== o.fingerprint) throw kernelError('RTC_ERR_REVIEW_OPERATOR', `${file}: operator ${o.name}: fingerprint ${o.fingerprint} is not the key's (${fingerprint})`);
    return { name: o.name, fingerprint, publicKey };
  });
  return { source: file, operators };
}

/**
 * This operator's signing key, refused (one line) when missing, readable by others, or
 * inside `stateDir` (a persona's reach).
 */
export function loadOperatorKey(env: Readonly<Record<string, string | undefined>>, stateDir?: string): OperatorKey {
  const home = operatorHome(env);
  const file = path.join(home, OPERATOR_KEY_FILE);
  if (stateDir !== undefined) refuseInsideState(home, stateDir);
  if (!existsSync(file)) {
    throw kernelError('RTC_ERR_REVIEW_OPERATOR', `no operator credential at ${file}: a decision is signed by an operator; run "runtimectl operator init --name NAME" once (or set ${OPERATOR_HOME_ENV})`, {
      details: { file },
    });
  }
  checkSecretFile(file, 'RTC_ERR_REVIEW_OPERATOR', 'the operator key');
  const doc = readJson(keyFileSchema, file);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(doc.private_key);
  } catch {
    throw kernelError('RTC_ERR_REVIEW_OPERATOR', `${file}: private_key is not a private key in PEM`);
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') throw kernelError('RTC_ERR_REVIEW_OPERATOR', `${file}: the key is ${privateKey.asymmetricKeyType}, not ed25519`);
  const publicKey = createPublicKey(privateKey);
  return { name: doc.name, privateKey, publicKey, fingerprint: keyFingerprint(publicKey) };
}

/** The operator's folder must be outside the state directory: nothing in it is a persona's to read. */
export function refuseInsideState(home: string, stateDir: string): void {
  const rel = path.relative(path.resolve(stateDir), home);
  if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) {
    throw kernelError('RTC_ERR_REVIEW_OPERATOR', `the operator folder ${home} is inside the state directory ${stateDir}, within the personas' reach; keep ${OPERATOR_HOME_ENV} outside it`);
  }
}

function writeTrust(file: string, operators: { name: string; public_key: string; fingerprint: string }[]): void {
  replaceFileDurably(file, `${JSON.stringify({ format: 'runtimectl.operators/1', operators }, null, 2)}\n`);
}

/**
 * Creates this operator's key pair (refused when one exists) and trusts its public key.
 * Returns the key.
 */
export function initOperator(env: Readonly<Record<string, string | undefined>>, name: string): OperatorKey {
  const parsed = actorSchema.safeParse(name);
  if (!parsed.success) throw kernelError('RTC_ERR_CLI_USAGE', `--name ${JSON.stringify(name)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const home = operatorHome(env);
  const keyFile = path.join(home, OPERATOR_KEY_FILE);
  if (existsSync(keyFile)) throw kernelError('RTC_ERR_REVIEW_OPERATOR', `${keyFile} already holds an operator key; remove it first to make a new one (decisions it signed stay valid only while its public key is trusted)`);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  // Created 0600 in a 0700 folder in one step: the key is never readable by others, not even for a moment.
  createSecretFile(keyFile, `${JSON.stringify({ format: 'runtimectl.operator-key/1', name, private_key: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString() }, null, 2)}\n`, 'RTC_ERR_REVIEW_OPERATOR');
  trustOperator(env, name, publicPem(publicKey));
  return { name, privateKey, publicKey, fingerprint: keyFingerprint(publicKey) };
}

/** Adds (or replaces, by name) a trusted operator's public key. */
export function trustOperator(env: Readonly<Record<string, string | undefined>>, name: string, publicKeyPem: string): TrustedOperator {
  const parsed = actorSchema.safeParse(name);
  if (!parsed.success) throw kernelError('RTC_ERR_CLI_USAGE', `--name ${JSON.stringify(name)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey(publicKeyPem);
  } catch {
    throw kernelError('RTC_ERR_REVIEW_OPERATOR', 'the public key is not a public key in PEM');
  }
  if (publicKey.asymmetricKeyType !== 'ed25519') throw kernelError('RTC_ERR_REVIEW_OPERATOR', `the public key is ${publicKey.asymmetricKeyType}, not ed25519`);
  const trust = loadOperatorTrust(env);
  const fingerprint = keyFingerprint(publicKey);
  const others = trust.operators.filter((o) => o.name !== name).map((o) => ({ name: o.name, public_key: publicPem(o.publicKey), fingerprint: o.fingerprint }));
  writeTrust(trust.source, [...others, { name, public_key: publicPem(publicKey), fingerprint }]);
  return { name, fingerprint, publicKey };
}

/** The public key of this operator's credential in PEM (to hand to another kernel's `operator trust`). */
export function publicKeyPem(key: OperatorKey): string {
  return publicPem(key.publicKey);
}
