// The worker thread of parallel-check.ts. Workers do not inherit the main thread's TypeScript
// loader (the bin registers tsx in-process), so this plain module registers it, as the bin does,
// and then runs the checker.
import { register } from 'tsx/esm/api';

register();
await import('./check-worker.ts');
