/** `Deno.permissions`: answered by the host from the run's grant (flags ∩ manifest ∩ ceiling). */
import { callSync } from '../host.ts';

export class PermissionStatus {
  state: 'granted' | 'prompt' | 'denied';
  onchange: null = null;
  partial: boolean;

  constructor(state: 'granted' | 'prompt' | 'denied', partial: boolean) {
    this.state = state;
    this.partial = partial;
  }
}

type Descriptor = { name: string; [key: string]: unknown };

function checkDescriptor(desc: Descriptor): Descriptor {
  if (desc === null || typeof desc !== 'object' || typeof desc.name !== 'string') {
    throw new TypeError("The provided value is not of type 'PermissionDescriptor'");
  }
  return desc;
}

function ask(op: string, desc: Descriptor): PermissionStatus {
  const answer = callSync<{ state: 'granted' | 'prompt' | 'denied'; partial: boolean }>(op, checkDescriptor(desc));
  return new PermissionStatus(answer.state, answer.partial);
}

export const permissions = {
  query: async (desc: Descriptor) => ask('permissions.query', desc),
  querySync: (desc: Descriptor) => ask('permissions.query', desc),
  // No terminal in the sandbox: a request is answered as Deno answers it with --no-prompt.
  request: async (desc: Descriptor) => ask('permissions.request', desc),
  requestSync: (desc: Descriptor) => ask('permissions.request', desc),
  revoke: async (desc: Descriptor) => ask('permissions.revoke', desc),
  revokeSync: (desc: Descriptor) => ask('permissions.revoke', desc),
};
