// A worker thread of `runtimectl run --workers N`. The kernel is TypeScript loaded through
// tsx: the bin registers tsx on the main thread only (Node 20 does not carry module hooks
// into workers), so the worker registers it itself before importing its main module.
// Node's own flags (--no-node-snapshot, which isolated-vm 5 needs) are inherited from the
// process: a worker may not be given them again (ERR_WORKER_INVALID_EXEC_ARGV).
import { register } from 'tsx/esm/api';

register();
await import('./worker-main.ts');
