/**
 * `runtimectl proposals ...`: the operator's entrypoint to a persona's review queue
 * (`<state>/<persona>/review/proposals.jsonl`, or the persona's persistence backend; see
 * features/review-queue/README.md).
 *
 *   proposals list | show ID | start-review ID | accept ID | reject ID | submit
 *
 * Reads take no lock and write nothing. Decisions are checked again under the queue's lock,
 * so of two operators deciding one proposal exactly one decision is recorded and the other
 * gets RTC_ERR_REVIEW_DECIDED. The command line is the caller that supplies the clock
 * (--now MS, default the current time); the queue never reads one.
 */
import { persistenceProvider } from '../persistence/provider.ts';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isKernelError, kernelError } from '../../kernel/errors.ts';
import { readManifestFile } from '../../kernel/manifest/load.ts';
import { PERSISTENCE_CONFIG_FILE } from '../persistence/state/persistence-config-schema.ts';
import { listPersonaIds as listProfileIds, resolvePersona } from '../profiles/load.ts';
import { proposalDetails, proposalLine } from './format.ts';
import {
  DEFAULT_REVIEW_POLICY,
  openPersonaReviewQueue,
  parseProposalId,
  parseReviewPolicy,
  PROPOSAL_KINDS,
  PROPOSAL_LOG_RELATIVE,
  PROPOSAL_STATES,
  type Proposal,
  type ReviewQueue,
  reviewPolicySchema,
  type EvidenceRef,
  type ProposalInput,
  type ProposalKind,
  type ProposalState,
  type ReviewPolicy,
} from '../review-queue/index.ts';
import { chooseStateDir, existingPersonaDir, existingStateDir, knownPersonaDir } from '../persistence/state/state-dir.ts';
import { loadOperatorKey } from '../review-queue/operators.ts';
import { personaEvents, ratifyContextFor } from './ratify-context.ts';
import { submissionEvidence } from '../review-queue/evidence.ts';
import { parseFlags, printJson, type CliIo, type Command, type Options } from '../command/command.ts';

const WHERE_OPTIONS = {
  persona: { type: 'string' },
  'state-dir': { type: 'string' },
  now: { type: 'string' },
  json: { type: 'boolean' },
} as const satisfies Options;

const DECIDE_OPTIONS = { ...WHERE_OPTIONS, by: { type: 'string' }, reason: { type: 'string' } } as const satisfies Options;

const WHERE_USAGE = `  --persona ID       the persona (default: the one the proposal id names)
  --state-dir DIR    state directory holding <persona>/ (default: $SCIDEX_AGENT_STATE_DIR, else ./state)
  --now MS           the time, in epoch milliseconds (default: the current time)
  --json             print one JSON document`;

function usageError(message: string, command: string): never {
  throw kernelError('RTC_ERR_CLI_USAGE', `${message}; see "runtimectl proposals ${command} --help"`);
}

function stateDirOf(values: { 'state-dir'?: string }, io: CliIo): string {
  return existingStateDir(values['state-dir'], io.env, io.cwd).stateDir;
}

/** The folder of an existing persona (a typo is never a new queue), named by --persona or by the proposal id. */
function existingPersona(values: { 'state-dir'?: string }, io: CliIo, persona: string, command: string): string {
  return existingPersonaDir(existingStateDir(values['state-dir'], io.env, io.cwd), persona, `proposals ${command}`);
}

function nowOf(values: { now?: string }, command: string): number {
  if (values.now === undefined) return Date.now();
  if (!/^\d{1,15}$/.test(values.now)) usageError(`--now ${values.now}: must be epoch milliseconds`, command);
  return Number(values.now);
}

/** The persona a proposal id belongs to: --persona when given (and it must agree), else the id's. */
function personaFor(id: string, given: string | undefined): string {
  const parsed = parseProposalId(id);
  if (given !== undefined) {
    if (parsed !== undefined && parsed.persona !== given) {
      throw kernelError('RTC_ERR_REVIEW_NOT_FOUND', `no proposal ${id} in the review queue of persona "${given}" (it names persona "${parsed.persona}")`, { details: { id, persona: given } });
    }
    return given;
  }
  if (parsed === undefined) throw kernelError('RTC_ERR_REVIEW_NOT_FOUND', `no proposal ${id}: ids look like P-<persona>-<n>`, { details: { id } });
  return parsed.persona;
}

function oneId(positionals: string[], command: string): string {
  const [id, extra] = positionals;
  if (id === undefined || extra !== undefined) usageError('expected one proposal ID', command);
  return id;
}

/** Personas under the state directory that may have a proposal log: the file, or a persistence backend that may hold one. */
function personasWithQueues(stateDir: string): string[] {
  return readdirSync(stateDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && (existsSync(path.join(stateDir, e.name, PROPOSAL_LOG_RELATIVE)) || existsSync(path.join(stateDir, e.name, PERSISTENCE_CONFIG_FILE))))
    .map((e) => e.name)
    .sort();
}

/** Runs `fn` on the persona's queue, over the persistence backend its persistence.yaml names. */
async function withQueue<T>(personaDir: string, options: { readonly?: boolean; policy?: ReviewPolicy }, fn: (queue: ReviewQueue) => T): Promise<T> {
  const queue = await openPersonaReviewQueue(personaDir, persistenceProvider, options);
  try {
    return fn(queue);
  } finally {
    await queue.close();
  }
}

// ---- proposals (no subcommand)

const SUBCOMMANDS = ['list', 'show', 'start-review', 'accept', 'reject', 'submit'];

const GROUP_USAGE = `Usage: runtimectl proposals <command> [options]

A persona's review queue: proposals to change ratified state (long-term memory, skills,
profiles, plugins) wait here for an operator. Accepted proposals take effect at the
persona's next cycle boundary; nothing is ever edited or removed from the log.

Commands:
  list           list proposals (every persona with a queue, or --persona ID)
  show ID        one proposal: content, evidence, history
  start-review ID --by NAME      mark a proposal under review
  accept ID --by NAME [--reason TEXT]
  reject ID --by NAME --reason TEXT
  submit --persona ID --kind KIND ...   queue a proposal (operators, tests)

Every command takes --help.
`;

export const proposalsCommand: Command = {
  path: ['proposals'],
  summary: 'the review queue: list, show, accept, reject, submit proposals to change ratified state',
  usage: GROUP_USAGE,
  async run(argv, io) {
    if (argv[0] === undefined) {
      io.stdout(GROUP_USAGE);
      return 2;
    }
    throw kernelError('RTC_ERR_CLI_USAGE', `unknown proposals command "${argv[0]}"; one of ${SUBCOMMANDS.join(', ')}`);
  },
};

// ---- proposals list

function parseStates(text: string): ProposalState[] {
  const states = text.split(',').map((s) => s.trim());
  for (const s of states) {
    if (!(PROPOSAL_STATES as readonly string[]).includes(s)) usageError(`--state ${s}: one of ${PROPOSAL_STATES.join(', ')}`, 'list');
  }
  return states as ProposalState[];
}

export const proposalsListCommand: Command = {
  path: ['proposals', 'list'],
  summary: 'list proposals in the review queue',
  usage: `Usage: runtimectl proposals list [--persona ID] [--state STATE[,STATE]] [options]

Lists proposals in submission order with their state. "overdue" marks a proposal past its
expiry that the queue has not yet recorded as expired (the next change records it).

Options:
  --state STATES     only these states (pending, under-review, accepted, rejected, expired)
${WHERE_USAGE}
`,
  async run(argv, io) {
    const { values } = parseFlags(argv, { ...WHERE_OPTIONS, state: { type: 'string' } }, 'proposals list', false);
    const stateDir = stateDirOf(values, io);
    const now = nowOf(values, 'list');
    const states = values.state === undefined ? undefined : parseStates(values.state);
    const candidates = values.persona === undefined ? personasWithQueues(stateDir) : [path.basename(existingPersona(values, io, values.persona, 'list'))];
    const personas: string[] = [];
    const proposals: Proposal[] = [];
    for (const persona of candidates) {
      const listed = await withQueue(path.join(stateDir, persona), { readonly: true }, (queue) => {
        // A persona found by its persistence.yaml is listed only when its backend holds a queue.
        if (values.persona === undefined && !queue.hasRecords()) return undefined;
        return queue.list(states === undefined ? {} : { states });
      });
      if (listed === undefined) continue;
      personas.push(persona);
      proposals.push(...listed);
    }
    if (values.json) printJson(io, { stateDir, now, personas, proposals });
    else {
      for (const proposal of proposals) io.stdout(proposalLine(proposal, now));
      io.stdout(`${proposals.length} proposal(s)${personas.length === 1 ? ` for persona ${personas[0]}` : ` in ${personas.length} queue(s)`}\n`);
    }
    return 0;
  },
};

// ---- proposals show

export const proposalsShowCommand: Command = {
  path: ['proposals', 'show'],
  summary: 'show one proposal with its evidence and history',
  usage: `Usage: runtimectl proposals show ID [options]

Options:
${WHERE_USAGE}
`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, WHERE_OPTIONS, 'proposals show');
    const id = oneId(positionals, 'show');
    const proposal = await withQueue(existingPersona(values, io, personaFor(id, values.persona), 'show'), { readonly: true }, (queue) => queue.get(id));
    if (values.json) printJson(io, { proposal });
    else io.stdout(proposalDetails(proposal, nowOf(values, 'show')));
    return 0;
  },
};

// ---- proposals start-review | accept | reject

function decisionCommand(verb: 'start-review' | 'accept' | 'reject', summary: string, usage: string): Command {
  return {
    path: ['proposals', verb],
    summary,
    usage,
    async run(argv, io) {
      const { values, positionals } = parseFlags(argv, DECIDE_OPTIONS, `proposals ${verb}`);
      const id = oneId(positionals, verb);
      if (verb === 'reject' && values.reason === undefined) usageError('--reason TEXT is required to reject', verb);
      const now = nowOf(values, verb);
      const personaDir = existingPersona(values, io, personaFor(id, values.persona), verb);
      // Every decision is signed with the operator's credential and checked against the trust
      // list before it is recorded (features/review-queue/ratify.ts); the loop checks it again when it applies.
      const operator = loadOperatorKey(io.env, path.dirname(personaDir));
      if (values.by !== undefined && values.by !== operator.name) {
        throw kernelError('RTC_ERR_REVIEW_OPERATOR', `--by ${values.by}: this operator credential is "${operator.name}" (${operator.fingerprint.slice(0, 23)}…); a decision is recorded under the name of the key that signs it`);
      }
      const ratify = await ratifyContextFor(personaDir, io.env);
      const decision = { by: operator.name, now, operator, ratify, ...(values.reason === undefined ? {} : { reason: values.reason }) };
      const result = await withQueue(personaDir, {}, (queue) =>
        verb === 'accept' ? queue.accept(id, decision) : verb === 'reject' ? queue.reject(id, { ...decision, reason: values.reason! }) : queue.startReview(id, decision),
      );
      if (values.json) printJson(io, result);
      else {
        const p = result.proposal;
        const note = p.state === 'accepted' ? ` at the persona's next cycle boundary, if its kernel trusts this key (a running kernel re-reads its operators.json there; "proposals show ${p.id}" says whether it was applied or held, and why)` : '';
        io.stdout(`${p.id}: ${p.history.at(-1)?.from ?? 'pending'} → ${p.state} by ${operator.name} (signed, key ${operator.fingerprint.slice(0, 23)}…)${note ? `; it takes effect${note}` : ''}\n`);
      }
      return 0;
    },
  };
}

export const proposalsStartReviewCommand = decisionCommand(
  'start-review',
  'mark a proposal as under review',
  `Usage: runtimectl proposals start-review ID --by NAME [--reason TEXT] [options]

Moves a pending proposal to under-review. It still expires at its expiry if undecided.

Options:
  --by NAME          who is reviewing (default and only allowed value: the name of your operator credential)
  --reason TEXT      a note kept in the history
${WHERE_USAGE}
`,
);

export const proposalsAcceptCommand = decisionCommand(
  'accept',
  'accept a proposal (it takes effect at the next cycle boundary)',
  `Usage: runtimectl proposals accept ID --by NAME [--reason TEXT] [options]

Accepts a pending or under-review proposal. A proposal is decided once: accepting one that
was already accepted or rejected, or that expired, fails with one line and exit status 1.

Options:
  --by NAME          who accepts (default and only allowed value: the name of your operator
                     credential; recorded, and written into long-term.md headers)
  --reason TEXT      why
${WHERE_USAGE}
`,
);

export const proposalsRejectCommand = decisionCommand(
  'reject',
  'reject a proposal',
  `Usage: runtimectl proposals reject ID --by NAME --reason TEXT [options]

Rejects a pending or under-review proposal. A proposal is decided once.

Options:
  --by NAME          who rejects (default: the name of your operator credential)
  --reason TEXT      why (required)
${WHERE_USAGE}
`,
);


/**
 * The submission's evidence, checked as an agent's is (features/review-queue/evidence.ts): each ref a
 * file inside the persona folder or an event of its log, with the digest it has now. An
 * absolute path, a `..`, a link out of the persona folder and a missing file get one and the
 * same refusal, so the command says nothing of what lies outside (an executor can run it).
 */
async function checkedEvidence(personaDir: string, input: ProposalInput): Promise<ProposalInput> {
  const { events } = await personaEvents(personaDir);
  const sources = { personaDir, ...(events ? { events: () => events } : {}) };
  const check = (refs: readonly EvidenceRef[], flag: string): EvidenceRef[] => {
    try {
      return submissionEvidence(refs, sources);
    } catch (error) {
      if (isKernelError(error)) throw kernelError(error.code as 'RTC_ERR_REVIEW_EVIDENCE', `${flag} ${error.message.replace(/^evidence /, '')}`, { details: error.details ?? {} });
      throw error;
    }
  };
  const evidence = check(input.evidence, '--evidence');
  if (input.kind === 'skill-draft') return { ...input, evidence, package: check([input.package], '--package')[0]! };
  return { ...input, evidence };
}

// ---- proposals submit

const SUBMIT_OPTIONS = {
  ...WHERE_OPTIONS,
  kind: { type: 'string' },
  proposer: { type: 'string' },
  evidence: { type: 'string', multiple: true },
  text: { type: 'string' },
  skill: { type: 'string' },
  package: { type: 'string' },
  path: { type: 'string' },
  'content-file': { type: 'string' },
  policy: { type: 'string' },
} as const satisfies Options;

/** `REF@sha256:HEX`: the reference may itself contain `@`, the digest never does. */
function parseRef(text: string, flag: string): EvidenceRef {
  const at = text.lastIndexOf('@');
  if (at <= 0 || at === text.length - 1) usageError(`${flag} ${text}: expected REF@sha256:HEX`, 'submit');
  return { ref: text.slice(0, at), digest: text.slice(at + 1) };
}

/**
 * The persona's backpressure: --policy FILE, else the `review` section of its profile in
 * policies/personas/ when it has one, else the defaults.
 */
function policyFor(persona: string, file: string | undefined, io: CliIo): { policy: ReviewPolicy; source: string } {
  if (file !== undefined) return { policy: readManifestFile(reviewPolicySchema, path.resolve(io.cwd, file), io.cwd), source: file };
  try {
    const loaded = resolvePersona(persona, { cwd: io.cwd });
    const review = (loaded.profile as { review?: unknown }).review;
    if (review !== undefined) return { policy: parseReviewPolicy(review, `${path.basename(loaded.file)}: review`), source: path.basename(loaded.file) };
  } catch (error) {
    if (!isKernelError(error) || error.code !== 'RTC_ERR_PERSONA_NOT_FOUND') throw error;
  }
  return { policy: DEFAULT_REVIEW_POLICY, source: 'default' };
}

function submitInput(values: { kind?: string; proposer?: string; evidence?: string[]; text?: string; skill?: string; package?: string; path?: string; 'content-file'?: string }, io: CliIo): ProposalInput {
  const kind = values.kind;
  if (kind === undefined || !(PROPOSAL_KINDS as readonly string[]).includes(kind)) usageError(`--kind must be one of ${PROPOSAL_KINDS.join(', ')}`, 'submit');
  const base = { proposer: values.proposer ?? 'operator', origin: { via: 'cli' as const }, evidence: (values.evidence ?? []).map((e) => parseRef(e, '--evidence')) };
  if (base.evidence.length === 0) usageError('--evidence REF@DIGEST is required (a proposal rests on evidence)', 'submit');
  switch (kind as ProposalKind) {
    case 'memory-promotion':
      if (values.text === undefined) usageError('--text TEXT is required for a memory-promotion', 'submit');
      return { ...base, kind: 'memory-promotion', text: values.text };
    case 'skill-draft':
      if (values.skill === undefined || values.package === undefined) usageError('--skill NAME and --package REF@DIGEST are required for a skill-draft', 'submit');
      return { ...base, kind: 'skill-draft', skill: values.skill, package: parseRef(values.package, '--package') };
    default: {
      if (values.path === undefined || values['content-file'] === undefined) usageError(`--path PATH and --content-file FILE are required for a ${kind}`, 'submit');
      const file = path.resolve(io.cwd, values['content-file']);
      if (!existsSync(file)) throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `--content-file ${values['content-file']}: no such file`, { details: { path: values['content-file'] } });
      return { ...base, kind: kind as 'profile-change' | 'plugin-change', path: values.path, content: readFileSync(file) };
    }
  }
}

export const proposalsSubmitCommand: Command = {
  path: ['proposals', 'submit'],
  summary: 'queue a proposal (for operators and tests; agents use the proposals binding or the review.propose tool)',
  usage: `Usage: runtimectl proposals submit --persona ID --kind KIND --evidence REF@DIGEST [...] [options]

For operators and tests. A persona's agents propose from inside the loop: a plugin through
Runtimectl.bindings.proposals.submit(...), an executor session through the review.propose MCP
tool; both need the persona's profile to grant it (bindings: [proposals]). See
features/review/README.md.

Kinds and what each needs:
  memory-promotion              --text TEXT (appended to brain/memory/long-term.md once accepted)
  skill-draft                   --skill NAME --package REF@DIGEST (its gate evidence package)
  profile-change, plugin-change --path PATH --content-file FILE (stored under review/blobs/)

A proposal past the persona's backpressure (max_pending, rate_limit) is refused: the refusal
and an operator alert are recorded, nothing queued is dropped, and the exit status is 1.

Options:
  --evidence REF@DIGEST   what the proposal rests on (repeatable, required): a file of the persona,
                          relative to its folder (no "..", no absolute path, no link out of it),
                          workspace:PATH in its workspace, or events#SEQ; DIGEST is sha256:<hex>
                          of it now
  --proposer NAME         who proposes (default: operator)
  --policy FILE           backpressure policy YAML (default: the persona profile's review
                          section when it has one, else max_pending 20, 10 per hour, 7 days)
${WHERE_USAGE}
`,
  async run(argv, io) {
    const { values } = parseFlags(argv, SUBMIT_OPTIONS, 'proposals submit', false);
    if (values.persona === undefined) usageError('--persona ID is required', 'submit');
    const input = submitInput(values, io);
    const now = nowOf(values, 'submit');
    const { policy, source } = policyFor(values.persona, values.policy, io);
    const personaDir = knownPersonaDir(chooseStateDir(values['state-dir'], io.env, io.cwd), values.persona, 'proposals submit', listProfileIds());
    const checked = await checkedEvidence(personaDir, input);
    const outcome = await withQueue(personaDir, { policy }, (queue) => queue.submit(checked, { now }));
    if (values.json) {
      printJson(io, { ...outcome, policy, policy_source: source });
      return outcome.status === 'queued' ? 0 : 1;
    }
    if (outcome.status === 'refused') {
      const r = outcome.refusal;
      const where = r.recorded ? `refusal and operator alert recorded at seq ${r.refusal_seq}-${r.alert_seq}` : `the same refusal was recorded at seq ${r.refusal_seq}-${r.alert_seq} and is not written again until the proposer queues one or the window passes`;
      throw kernelError('RTC_ERR_REVIEW_BACKPRESSURE', `persona ${values.persona}: proposal refused (${r.reason}): ${r.message}; ${where}`, {
        details: { ...r },
      });
    }
    const p = outcome.proposal;
    io.stdout(`${p.id}: pending (expires ${new Date(p.expires_at).toISOString()}; policy: ${source})\n`);
    return 0;
  },
};

export const PROPOSALS_CLI_COMMANDS: readonly Command[] = [
  proposalsCommand,
  proposalsListCommand,
  proposalsShowCommand,
  proposalsStartReviewCommand,
  proposalsAcceptCommand,
  proposalsRejectCommand,
  proposalsSubmitCommand,
];
