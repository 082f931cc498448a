/** A clear error page: the code and the one line, never a stack trace. */
import { html } from '../html.ts';

export function errorBody(line: string) {
  return html`<p class="error" id="error">${line}</p><p><a href="/">back to the fleet</a></p>`;
}
