/**
 * An Aho-Corasick automaton over integer code points: one left-to-right pass over the text finds
 * whether any of the patterns occurs, in time linear in the text whatever the number of patterns.
 * Built once per rule change; the scan allocates nothing.
 *
 * Transitions are kept in compressed rows (CSR): the edges of node n are edgeChars/edgeTargets in
 * [edgeStart[n], edgeStart[n + 1]), sorted by code point, searched linearly when short and by
 * bisection when long (the root's row holds every first letter).
 */
export interface Automaton {
  /** Index of the first pattern found in codes[0..length), or -1. */
  firstMatch(codes: Int32Array, length: number): number;
  readonly size: number;
}

export function buildAutomaton(patterns: readonly Int32Array[]): Automaton {
  // The trie as first-child / next-sibling lists in typed arrays (no object per node); the root's
  // children, which can be thousands, also go in a Map. Nodes never outnumber pattern characters + 1.
  let capacity = 1;
  for (const pattern of patterns) capacity += pattern.length;
  const firstChild = new Int32Array(capacity).fill(-1);
  const nextSibling = new Int32Array(capacity).fill(-1);
  const label = new Int32Array(capacity);
  const terminal = new Int32Array(capacity).fill(-1);
  const childCount = new Int32Array(capacity);
  const rootChildren = new Map<number, number>();
  let count = 1;
  patterns.forEach((pattern, index) => {
    if (pattern.length === 0) return;
    let node = 0;
    for (const cp of pattern) {
      let next = node === 0 ? (rootChildren.get(cp) ?? -1) : (firstChild[node] as number);
      if (node !== 0) while (next !== -1 && label[next] !== cp) next = nextSibling[next] as number;
      if (next === -1) {
        next = count++;
        label[next] = cp;
        nextSibling[next] = firstChild[node] as number;
        firstChild[node] = next;
        childCount[node] = (childCount[node] as number) + 1;
        if (node === 0) rootChildren.set(cp, next);
      }
      node = next;
    }
    if (terminal[node] === -1) terminal[node] = index;
  });

  const edgeStart = new Int32Array(count + 1);
  let edges = 0;
  for (let node = 0; node < count; node++) {
    edgeStart[node] = edges;
    edges += childCount[node] as number;
  }
  edgeStart[count] = edges;
  const edgeChars = new Int32Array(edges);
  const edgeTargets = new Int32Array(edges);
  for (let node = 0; node < count; node++) {
    const from = edgeStart[node] as number;
    let at = from;
    for (let child = firstChild[node] as number; child !== -1; child = nextSibling[child] as number) edgeTargets[at++] = child;
    // Sorted by code point, so step() can bisect.
    if (at - from > 1) {
      const sorted = Array.from(edgeTargets.subarray(from, at)).sort((a, b) => (label[a] as number) - (label[b] as number));
      edgeTargets.set(sorted, from);
    }
    for (let i = from; i < at; i++) edgeChars[i] = label[edgeTargets[i] as number] as number;
  }

  function step(node: number, cp: number): number {
    let low = edgeStart[node] as number;
    let high = (edgeStart[node + 1] as number) - 1;
    if (high - low < 8) {
      for (let i = low; i <= high; i++) if (edgeChars[i] === cp) return edgeTargets[i] as number;
      return -1;
    }
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const value = edgeChars[middle] as number;
      if (value === cp) return edgeTargets[middle] as number;
      if (value < cp) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  // Failure links in breadth-first order; `found` is the pattern ending here or at a suffix.
  const fail = new Int32Array(count);
  const found = new Int32Array(count).fill(-1);
  const queue = new Int32Array(count);
  let head = 0;
  let tail = 0;
  for (let i = edgeStart[0] as number; i < (edgeStart[1] as number); i++) {
    const child = edgeTargets[i] as number;
    fail[child] = 0;
    found[child] = terminal[child] as number;
    queue[tail++] = child;
  }
  while (head < tail) {
    const node = queue[head++] as number;
    for (let i = edgeStart[node] as number; i < (edgeStart[node + 1] as number); i++) {
      const cp = edgeChars[i] as number;
      const child = edgeTargets[i] as number;
      let suffix = fail[node] as number;
      let next = step(suffix, cp);
      while (next === -1 && suffix !== 0) {
        suffix = fail[suffix] as number;
        next = step(suffix, cp);
      }
      fail[child] = next === -1 ? 0 : next;
      const own = terminal[child] as number;
      found[child] = own !== -1 ? own : (found[fail[child] as number] as number);
      queue[tail++] = child;
    }
  }

  return {
    size: patterns.length,
    firstMatch(codes, length) {
      if (edges === 0) return -1;
      let node = 0;
      for (let i = 0; i < length; i++) {
        const cp = codes[i] as number;
        let next = step(node, cp);
        while (next === -1 && node !== 0) {
          node = fail[node] as number;
          next = step(node, cp);
        }
        node = next === -1 ? 0 : next;
        const hit = found[node] as number;
        if (hit !== -1) return hit;
      }
      return -1;
    },
  };
}
