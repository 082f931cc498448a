/**
 * The effect tape, as the broker sees it: every answer the broker gives a plugin goes on the
 * tape its context carries (record), or comes from it (replay), with permission checks and
 * audit run the same way in both. The tapes themselves, a recording one and one that answers
 * from a record and names the first divergence, are features/cycle-recording/tape.ts.
 */
export interface Tape {
  readonly mode: 'record' | 'replay';
  /** replay: the recorded answer for this call, or a divergence error */
  answer(op: string, args: string): string;
  /**
   * record: reserves the call's place when it is made (so concurrent async calls are kept
   * in the order the code made them, not the order they finished) and returns the function
   * that fills in its answer.
   */
  begin(op: string, args: string): (answer: string) => void;
}
