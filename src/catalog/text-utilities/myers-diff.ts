// Line diff: Myers' O(ND) algorithm in its linear-space form (Myers 1986, section 4b): find the
// middle snake of an optimal edit path with a forward and a backward search, then recurse on the
// two halves. Time O((N+M)·D), memory O(N+M), where D is the number of inserted plus deleted lines.

export type DiffOp = { type: 'equal'; a: number; b: number } | { type: 'delete'; a: number } | { type: 'insert'; b: number };

interface Snake {
  x: number;
  y: number;
  u: number;
  v: number;
  d: number;
}

/** Indices into `a` and `b` (arrays of comparable ids) of a shortest edit script, in order. */
export function diffSequences(fullA: ArrayLike<number>, fullB: ArrayLike<number>): DiffOp[] {
  // Elements that occur in only one sequence can never be matched: drop them before the search
  // (exact, and it makes very different texts cheap), then map the matches back.
  const inA = new Set<number>();
  const inB = new Set<number>();
  for (let i = 0; i < fullA.length; i++) inA.add(fullA[i] ?? -1);
  for (let j = 0; j < fullB.length; j++) inB.add(fullB[j] ?? -1);
  const mapA: number[] = [];
  const mapB: number[] = [];
  for (let i = 0; i < fullA.length; i++) if (inB.has(fullA[i] ?? -1)) mapA.push(i);
  for (let j = 0; j < fullB.length; j++) if (inA.has(fullB[j] ?? -1)) mapB.push(j);
  const a = Int32Array.from(mapA, (i) => fullA[i] ?? -1);
  const b = Int32Array.from(mapB, (j) => fullB[j] ?? -1);

  const max = a.length + b.length + 2;
  const vf = new Int32Array(2 * max + 2);
  const vb = new Int32Array(2 * max + 2);
  const matches: [number, number][] = [];

  // The middle snake of a[aLo..aHi) against b[bLo..bHi), coordinates relative to (aLo, bLo).
  function middleSnake(aLo: number, aHi: number, bLo: number, bHi: number): Snake {
    const n = aHi - aLo;
    const m = bHi - bLo;
    const delta = n - m;
    const odd = (delta & 1) !== 0;
    const dMax = Math.ceil((n + m) / 2);
    vf[max + 1] = 0;
    vb[max + 1] = 0;
    for (let d = 0; d <= dMax; d++) {
      for (let k = -d; k <= d; k += 2) {
        let x = k === -d || (k !== d && (vf[max + k - 1] ?? 0) < (vf[max + k + 1] ?? 0)) ? (vf[max + k + 1] ?? 0) : (vf[max + k - 1] ?? 0) + 1;
        let y = x - k;
        const x0 = x;
        const y0 = y;
        while (x < n && y < m && a[aLo + x] === b[bLo + y]) {
          x++;
          y++;
        }
        vf[max + k] = x;
        if (odd && k >= delta - (d - 1) && k <= delta + (d - 1)) {
          if (x + (vb[max + delta - k] ?? 0) >= n) return { x: x0, y: y0, u: x, v: y, d: 2 * d - 1 };
        }
      }
      for (let k = -d; k <= d; k += 2) {
        // Backward search on the reversed sequences: x, y count from the ends.
        let x = k === -d || (k !== d && (vb[max + k - 1] ?? 0) < (vb[max + k + 1] ?? 0)) ? (vb[max + k + 1] ?? 0) : (vb[max + k - 1] ?? 0) + 1;
        let y = x - k;
        const x0 = x;
        const y0 = y;
        while (x < n && y < m && a[aHi - 1 - x] === b[bHi - 1 - y]) {
          x++;
          y++;
        }
        vb[max + k] = x;
        if (!odd && delta - k >= -d && delta - k <= d) {
          if (x + (vf[max + delta - k] ?? 0) >= n) return { x: n - x, y: m - y, u: n - x0, v: m - y0, d: 2 * d };
        }
      }
    }
    throw new Error('middle snake not found');
  }

  function recurse(aLo: number, aHi: number, bLo: number, bHi: number): void {
    // Common prefix and suffix are matches and need no search.
    while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) matches.push([aLo++, bLo++]);
    const suffix: [number, number][] = [];
    while (aLo < aHi && bLo < bHi && a[aHi - 1] === b[bHi - 1]) suffix.push([--aHi, --bHi]);
    if (aLo < aHi && bLo < bHi) {
      const s = middleSnake(aLo, aHi, bLo, bHi);
      recurse(aLo, aLo + s.x, bLo, bLo + s.y);
      for (let i = 0; i < s.u - s.x; i++) matches.push([aLo + s.x + i, bLo + s.y + i]);
      recurse(aLo + s.u, aHi, bLo + s.v, bHi);
    }
    for (let i = suffix.length - 1; i >= 0; i--) {
      const pair = suffix[i];
      if (pair !== undefined) matches.push(pair);
    }
  }

  recurse(0, a.length, 0, b.length);

  const ops: DiffOp[] = [];
  let i = 0;
  let j = 0;
  for (const [ra, rb] of matches) {
    const ma = mapA[ra] ?? 0;
    const mb = mapB[rb] ?? 0;
    while (i < ma) ops.push({ type: 'delete', a: i++ });
    while (j < mb) ops.push({ type: 'insert', b: j++ });
    ops.push({ type: 'equal', a: i++, b: j++ });
  }
  while (i < fullA.length) ops.push({ type: 'delete', a: i++ });
  while (j < fullB.length) ops.push({ type: 'insert', b: j++ });
  return ops;
}
