/** One piece of work a probe found for a cycle: what executors and budget policies are handed. */
import { z } from 'zod';

export const workItemSchema = z.object({
  kind: z.enum(['packet', 'message', 'periodic']),
  key: z.string().describe('stable identity: `packet:<sha256>`, `message:<sha256>`, `periodic:<phase>`'),
  title: z.string(),
  body: z.string().describe('the packet or message text (bounded), empty for periodic work'),
  tier_hint: z.number().int().min(1).max(6).optional().describe('a packet may ask for a budget tier (front matter `tier: N`)'),
});
export type WorkItem = z.infer<typeof workItemSchema>;
