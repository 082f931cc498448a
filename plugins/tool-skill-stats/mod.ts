/** tool.skill-stats: a small example of a tool plugin that uses a Deno API under a narrow grant. */
import { countHeadings } from './headings.ts';

export async function stats(args: { file: string }): Promise<{ file: string; bytes: number; lines: number; headings: number }> {
  const text = await Deno.readTextFile(args.file);
  return { file: args.file, bytes: new TextEncoder().encode(text).length, lines: text.split('\n').length, headings: countHeadings(text) };
}
