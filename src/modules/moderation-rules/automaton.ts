/**
 * An Aho-Corasick automaton over integer code points: one left-to-right pass over the text finds
 * whether any of the patterns occurs, in time linear in the text whatever the number of patterns.
 * Built once per rule change; the scan allocates nothing.
 *
 * Transitions are kept in compressed rows (CSR): the edges of node n are edgeChars/edgeTargets in
 * [edgeStart[n], edgeStart[n + 1]), sorted by code point, searched linearly when short and by
 * bisection when long (the root's row holds every first letter). The shallow nodes, where most steps
 * land, also get complete rows (goto and failure folded in) indexed by the patterns' alphabet, so a
 * step from them is one table read instead of a search and a walk along failure links.
 */
export interface Automaton {
  /** Index of the first pattern found in codes[0..length), or -1. */
  firstMatch(codes: Int32Array, length: number): number;
  /** Indexes of every pattern found in codes[0..length), ascending (for reports, not the send path). */
  allMatches(codes: Int32Array, length: number): number[];
  readonly size: number;
}

/** Code points with a direct slot in the symbol table (the Basic Multilingual Plane). */
const BMP_SIZE = 0x10000;
/** Nodes down to this depth get a complete transition row. */
const DENSE_DEPTH = 2;
/** Most cells in all complete rows together (4 bytes each: 16 MB). */
const DENSE_CELLS = 1 << 22;

/** The trie as first-child / next-sibling lists in typed arrays (no object per node). */
interface Trie {
  count: number;
  firstChild: Int32Array;
  nextSibling: Int32Array;
  label: Int32Array;
  /** The index of the pattern ending at a node, or -1. */
  terminal: Int32Array;
  childCount: Int32Array;
}

/** The trie's edges in compressed rows (CSR), each row sorted by code point. */
interface Edges {
  count: number;
  edges: number;
  edgeStart: Int32Array;
  edgeChars: Int32Array;
  edgeTargets: Int32Array;
}

/** Failure links in breadth-first order; `found` is the pattern ending at a node or at a suffix of it. */
interface FailureLinks {
  fail: Int32Array;
  found: Int32Array;
  /** Every node but the root, breadth-first. */
  order: Int32Array;
}

/** The patterns' trie. The root's children, which can be thousands, also go in a Map. Nodes never outnumber pattern characters + 1. */
function buildTrie(patterns: readonly Int32Array[]): Trie {
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
  return { count, firstChild, nextSibling, label, terminal, childCount };
}

function compressEdges(trie: Trie): Edges {
  const { count, firstChild, nextSibling, label, childCount } = trie;
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
  return { count, edges, edgeStart, edgeChars, edgeTargets };
}

/** The trie's goto function: the child of `node` by `cp`, or -1; a linear search on short rows, bisection on long ones. */
function stepperOf({ edgeStart, edgeChars, edgeTargets }: Edges): (node: number, cp: number) => number {
  return (node, cp) => {
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
  };
}

function failureLinks(edges: Edges, terminal: Int32Array, step: (node: number, cp: number) => number): FailureLinks {
  const { count, edgeStart, edgeChars, edgeTargets } = edges;
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
  return { fail, found, order: queue.subarray(0, tail) };
}

/** The patterns' alphabet: a column per code point that occurs in some pattern. */
function alphabetOf(edges: Edges): { symbols: number; symbolFor: (cp: number) => number; symbolChars: Int32Array } {
  const symbolOf = new Int32Array(BMP_SIZE).fill(-1);
  const astralSymbols = new Map<number, number>();
  let symbols = 0;
  for (let i = 0; i < edges.edges; i++) {
    const cp = edges.edgeChars[i] as number;
    if (cp >= 0 && cp < BMP_SIZE) {
      if (symbolOf[cp] === -1) symbolOf[cp] = symbols++;
    } else if (!astralSymbols.has(cp)) astralSymbols.set(cp, symbols++);
  }
  const symbolFor = (cp: number): number => (cp >= 0 && cp < BMP_SIZE ? (symbolOf[cp] as number) : (astralSymbols.get(cp) ?? -1));
  const symbolChars = new Int32Array(symbols);
  for (let cp = 0; cp < BMP_SIZE; cp++) if (symbolOf[cp] !== -1) symbolChars[symbolOf[cp] as number] = cp;
  for (const [cp, symbol] of astralSymbols) symbolChars[symbol] = cp;
  return { symbols, symbolFor, symbolChars };
}

/**
 * Complete transition rows (goto and failure folded into one table read) for the shallow nodes,
 * where a scan spends most of its steps: every character that continues no pattern falls back to
 * them. Columns are the code points that occur in some pattern (any other one leads to the root).
 * Rows are added breadth-first while the table stays under DENSE_CELLS, so a rule set over a huge
 * alphabet (thousands of CJK characters) gets fewer of them, never an unbounded table.
 */
function denseRows(edges: Edges, links: FailureLinks, step: (node: number, cp: number) => number) {
  const { count, edgeStart, edgeTargets } = edges;
  const { symbols, symbolFor, symbolChars } = alphabetOf(edges);
  const depth = new Int32Array(count);
  for (const node of links.order) {
    for (let e = edgeStart[node] as number; e < (edgeStart[node + 1] as number); e++) depth[edgeTargets[e] as number] = (depth[node] as number) + 1;
  }
  const denseRow = new Int32Array(count).fill(-1);
  const maxRows = symbols === 0 ? 0 : Math.max(1, Math.floor(DENSE_CELLS / symbols));
  const order = [0, ...links.order];
  let rows = 0;
  for (const node of order) {
    if (rows >= maxRows || (depth[node] as number) > DENSE_DEPTH) break;
    denseRow[node] = rows++;
  }
  const table = new Int32Array(rows * symbols);
  // Breadth-first, so a node's failure target (shallower) has its row filled before the node's own.
  for (const node of order) {
    const row = denseRow[node] as number;
    if (row === -1) break;
    const base = row * symbols;
    const failBase = node === 0 ? -1 : (denseRow[links.fail[node] as number] as number) * symbols;
    for (let symbol = 0; symbol < symbols; symbol++) {
      const next = step(node, symbolChars[symbol] as number);
      table[base + symbol] = next !== -1 ? next : node === 0 ? 0 : (table[failBase + symbol] as number);
    }
  }
  return { symbols, symbolFor, denseRow, table };
}

export function buildAutomaton(patterns: readonly Int32Array[]): Automaton {
  const trie = buildTrie(patterns);
  const edges = compressEdges(trie);
  const step = stepperOf(edges);
  const links = failureLinks(edges, trie.terminal, step);
  const { fail, found } = links;
  const { symbols, symbolFor, denseRow, table } = denseRows(edges, links, step);
  /** The node after reading `cp` at `node`, following failure links as needed. */
  const advance = (from: number, cp: number): number => {
    let node = from;
    for (;;) {
      const row = denseRow[node] as number;
      if (row !== -1) {
        const symbol = symbolFor(cp);
        return symbol === -1 ? 0 : (table[row * symbols + symbol] as number);
      }
      const next = step(node, cp);
      if (next !== -1) return next;
      node = fail[node] as number;
    }
  };
  return {
    size: patterns.length,
    firstMatch(codes, length) {
      if (edges.edges === 0) return -1;
      let node = 0;
      for (let i = 0; i < length; i++) {
        node = advance(node, codes[i] as number);
        const hit = found[node] as number;
        if (hit !== -1) return hit;
      }
      return -1;
    },
    allMatches(codes, length) {
      const hits = new Set<number>();
      if (edges.edges === 0) return [];
      let node = 0;
      for (let i = 0; i < length; i++) {
        node = advance(node, codes[i] as number);
        // Every pattern ending here: the node's own, then those of its suffixes along the failure links.
        for (let suffix = node; suffix > 0 && (found[suffix] as number) !== -1; suffix = fail[suffix] as number) {
          const own = trie.terminal[suffix] as number;
          if (own !== -1) hits.add(own);
        }
      }
      return [...hits].sort((a, b) => a - b);
    },
  };
}
