/**
 * One worker thread: opens its share of the personas in a LoopKernel of its own (its own
 * shim, plugin directory, isolates and subprocess registry), tells the main thread, waits
 * for the word to start, and runs each persona's loop exactly as the in-process run does
 * (run-personas.ts runPersonaLoop). Each cycle's report goes to the main thread as it is
 * made; the persona's writer lock, event log and trace are held by this thread alone.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { PersonaRuntime } from '../../persona/persona-runtime.ts';
import { openPersonas, runPersonaLoop } from '../run-personas.ts';
import { ChildRegistry } from '../executors/children.ts';
import { openLoopKernel } from '../preset.ts';
import { harnessToolServer } from '../../mcp/harness-server.ts';
import { withDsnContext } from '../../persistence/dsn.ts';
import { toWire, type FromWorker, type ToWorker, type WorkerSetup } from './protocol.ts';

const port = parentPort!;
const setup = workerData as WorkerSetup;
const send = (message: FromWorker) => port.postMessage(message);

const controller = new AbortController();
let started: () => void;
let closeOnly: () => void;
const go = new Promise<'start' | 'close'>((resolve) => {
  started = () => resolve('start');
  closeOnly = () => resolve('close');
});

async function main(): Promise<void> {
  const children = new ChildRegistry();
  const kernel = await openLoopKernel({
    ...setup.loop,
    children,
    substrate: setup.substrate,
    // a function cannot cross to a worker: each makes the run's MCP tool server for its share
    ...(setup.harnessTools ? { mcpServer: harnessToolServer(setup.personas) } : {}),
  });
  port.on('message', (message: ToWorker) => {
    if (message.type === 'start') started();
    else if (message.type === 'close') closeOnly();
    else if (message.type === 'finish') controller.abort();
    else if (message.type === 'crash') process.exit(message.code);
    else if (message.type === 'stop') {
      controller.abort();
      send({ type: 'stopping', running: children.running });
      void children.stop(message.killAfterMs);
    }
  });
  // A persona with no cycles left (a restart after it finished its share) is not opened again.
  const personas = setup.personas.filter((p) => setup.cycles?.[p.profile.id] !== 0);
  let runtimes: PersonaRuntime[];
  try {
    const opened = await openPersonas(kernel, personas);
    runtimes = opened.runtimes;
    send({ type: 'opened', personas: runtimes.map((rt) => rt.profile.id), refused: opened.refused });
  } catch (error) {
    send({ type: 'open-failed', error: toWire(error) });
    return;
  }
  const stopped: Record<string, string> = {};
  try {
    if ((await go) === 'close') return;
    await Promise.all(
      runtimes.map(async (rt) => {
        const cycles = setup.cycles?.[rt.profile.id];
        const run = await runPersonaLoop(rt, {
          ...(cycles !== undefined ? { cycles } : {}),
          ...(setup.everySeconds !== undefined ? { everySeconds: setup.everySeconds } : {}),
          signal: controller.signal,
          onCycle: (report) => send({ type: 'cycle', report }),
          onWait: (wait) => send({ type: 'wait', wait }),
        });
        if (run.stopped) stopped[run.persona_id] = run.stopped;
      }),
    );
  } finally {
    await Promise.all(runtimes.map((rt) => rt.close()));
  }
  send({ type: 'done', stopped });
}

// Personas come with their profiles here, as under run: a missing database is told with every way run has to name one.
withDsnContext({ flag: true, profile: true }, main).then(
  () => port.close(),
  (error: unknown) => {
    // A start that fails before the personas open (the kernel's own checks) is an open failure too.
    send({ type: 'open-failed', error: toWire(error) });
    port.close();
  },
);
