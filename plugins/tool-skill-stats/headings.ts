/** Markdown ATX headings (`# ...`) outside fenced code blocks. */
export function countHeadings(markdown: string): number {
  let inFence = false;
  let count = 0;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    else if (!inFence && /^#{1,6}\s/.test(line)) count++;
  }
  return count;
}
