/** The event one loop cycle writes, whatever its harness: what cycles are counted (and replayed) by. */
export const CYCLE_EVENT = 'continuous_loop_cycle';
