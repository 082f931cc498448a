/**
 * The soak's slopes: least squares of a measure (RSS, descriptors) against time and against
 * cycles, over the samples past each kernel life's warm-up. A kill -9 and restart starts a
 * new life at a new level, so the slope is the pooled within-life one: each life's samples
 * are centred on their own means and one slope is fitted to all of them (the slope every life
 * shares; a level that differs between lives does not count as growth).
 */
export interface Point {
  /** which kernel life the sample is from (0, 1, ...) */
  life: number;
  x: number;
  y: number;
}

export interface Fit {
  /** change of y per unit of x */
  slope: number;
  /** the mean of y over the points, for a relative figure */
  meanY: number;
  points: number;
  lives: number;
}

/** Pooled within-life least squares; undefined with fewer than 3 points or no spread in x. */
export function pooledSlope(points: readonly Point[]): Fit | undefined {
  const byLife = new Map<number, Point[]>();
  for (const p of points) byLife.set(p.life, [...(byLife.get(p.life) ?? []), p]);
  let sxy = 0;
  let sxx = 0;
  let n = 0;
  let sumY = 0;
  let lives = 0;
  for (const group of byLife.values()) {
    if (group.length < 2) continue;
    lives += 1;
    const mx = group.reduce((s, p) => s + p.x, 0) / group.length;
    const my = group.reduce((s, p) => s + p.y, 0) / group.length;
    for (const p of group) {
      sxy += (p.x - mx) * (p.y - my);
      sxx += (p.x - mx) ** 2;
      sumY += p.y;
      n += 1;
    }
  }
  if (n < 3 || sxx === 0) return undefined;
  return { slope: sxy / sxx, meanY: sumY / n, points: n, lives };
}
