/** @module The per-account balance index: a B+tree of (atMs, seq)-keyed amounts answering sums by time in O(log n). */

import assert from 'node:assert/strict'

/**
 * A point as iteration yields it: a fresh plain object per point, never reused, so callers may
 * keep it (a page holds on to its cursor key after the iterator moves on).
 */
export interface SumTreePoint {
  readonly atMs: number
  readonly seq: number
  readonly amount: number
}

export interface SumTreeOptions {
  /** Points per leaf. 64 keeps a leaf at 1.5 KiB and 1M appended points four levels deep. */
  readonly leafPointsMax?: number
  /** Children per branch. Tests shrink both to 4 to force splits at every level with few points. */
  readonly branchChildrenMax?: number
  /** Where the nodes' arrays come from; default separateArrays. A workspace passes its DoublesArena. */
  readonly allocator?: DoublesAllocator
}

export const leafPointsMaxDefault = 64
export const branchChildrenMaxDefault = 64
/** Small nodes only make sense in tests; large ones turn the O(node) shifts into scans. */
const nodeEntriesMin = 4
const nodeEntriesMax = 1024

/** Where a tree's nodes get their (zeroed) arrays of doubles. */
export interface DoublesAllocator {
  allocate(count: number): Float64Array
}

/** An ArrayBuffer of its own per array: for trees that stay small (tests, micro-benchmarks). */
export const separateArrays: DoublesAllocator = { allocate: (count) => new Float64Array(count) }

/**
 * Node arrays cut from shared blocks of 256 KiB instead of each having an ArrayBuffer of its own. At 1M
 * points the trees have ~50k nodes: one backing store each was ~75 MB of external allocations in 1.5 KiB
 * pieces, and V8 answers every 64 MB of those with a full collection of the heap, which by then holds the
 * million entries too (seconds of marking during a replay or a snapshot load). A block lives as long as
 * any node cut from it; nodes are never freed before their tree, so little is held in vain. One arena per
 * workspace (state.ts), so the trees of one workspace share blocks and nothing is shared across them.
 */
export class DoublesArena implements DoublesAllocator {
  static readonly blockDoubles = 32_768
  #block = new Float64Array(0)
  #used = 0

  allocate(count: number): Float64Array {
    if (count > DoublesArena.blockDoubles / 8) return new Float64Array(count)
    if (this.#used + count > this.#block.length) {
      this.#block = new Float64Array(DoublesArena.blockDoubles)
      this.#used = 0
    }
    const doubles = this.#block.subarray(this.#used, this.#used + count)
    this.#used += count
    return doubles
  }
}

/**
 * One Float64Array per leaf holds [atMs × capacity | seq × capacity | running sum × capacity]: a single
 * allocation keeps 1M points near 24 bytes each. Running sums (amount of this point plus all earlier ones
 * in the leaf) make a leaf's share of a prefix sum one read after the binary search instead of a scan.
 */
class Leaf {
  readonly capacity: number
  /** Where this node's splits get their arrays: the tree's allocator. */
  readonly allocator: DoublesAllocator
  readonly data: Float64Array
  length = 0
  /** Largest and smallest running sum, counting the empty prefix 0, relative to the leaf's start. */
  maxPrefix = 0
  minPrefix = 0
  /** The leaf to the right, so iteration walks leaves without a stack. */
  next: Leaf | null = null

  constructor(capacity: number, allocator: DoublesAllocator) {
    this.capacity = capacity
    this.allocator = allocator
    this.data = allocator.allocate(3 * capacity)
  }

  get sum(): number {
    return this.length === 0 ? 0 : this.data[2 * this.capacity + this.length - 1]
  }

  get count(): number {
    return this.length
  }

  get firstAtMs(): number {
    return this.data[0]
  }

  get firstSeq(): number {
    return this.data[this.capacity]
  }
}

/** Per-child copies of first key, running totals and extremes, so queries read typed arrays, not children. */
class Branch {
  readonly capacity: number
  readonly allocator: DoublesAllocator
  readonly children: TreeNode[] = []
  readonly childFirstAtMs: Float64Array
  readonly childFirstSeq: Float64Array
  /** runningSums[i]: sum of children 0..i; the same for counts. */
  readonly runningSums: Float64Array
  readonly runningCounts: Float64Array
  /** Each child's own extremes, relative to that child's start. */
  readonly childMaxPrefix: Float64Array
  readonly childMinPrefix: Float64Array
  maxPrefix = 0
  minPrefix = 0

  constructor(capacity: number, allocator: DoublesAllocator) {
    this.capacity = capacity
    this.allocator = allocator
    this.childFirstAtMs = allocator.allocate(capacity)
    this.childFirstSeq = allocator.allocate(capacity)
    this.runningSums = allocator.allocate(capacity)
    this.runningCounts = allocator.allocate(capacity)
    this.childMaxPrefix = allocator.allocate(capacity)
    this.childMinPrefix = allocator.allocate(capacity)
  }

  get sum(): number {
    return this.children.length === 0 ? 0 : this.runningSums[this.children.length - 1]
  }

  get count(): number {
    return this.children.length === 0 ? 0 : this.runningCounts[this.children.length - 1]
  }

  get firstAtMs(): number {
    return this.childFirstAtMs[0]
  }

  get firstSeq(): number {
    return this.childFirstSeq[0]
  }
}

type TreeNode = Leaf | Branch

/** Absolute extremes of the current prefix sums up to, and from, the slot a new point would take. */
interface Extremes {
  beforeMax: number
  beforeMin: number
  afterMax: number
  afterMin: number
}

/**
 * Sums of signed integer amounts over points keyed by (atMs, seq), unique keys.
 *
 * Range rule: the tree keeps every contiguous range sum a safe integer, i.e. (largest prefix sum) minus
 * (smallest prefix sum), counting the empty prefix 0, is at most Number.MAX_SAFE_INTEGER. That is exactly
 * what makes every prefix sum, every node sum and every sumRange difference exact, so no query can return
 * a rounded number. It is looser than bounding the sum of absolute amounts (an account may turn over far
 * more than 2^53 in total), and stricter than "every prefix is safe" only where a sumRange would overflow.
 * Each node keeps its prefix extremes, so insert checks the rule in O(1) while the whole tree's spread
 * plus |amount| is safe and in O(log n) otherwise, and throws a RangeError before it writes anything.
 *
 * Not safe to insert while an iterator is open: the iterator fails an assertion on its next step.
 */
export class SumTree {
  #root: TreeNode
  /** The rightmost leaf: "balance now" queries past the last key answer from the root without descending. */
  #lastLeaf: Leaf
  #height = 1
  /** Bumped by every insert so open iterators notice and fail loudly instead of skipping points. */
  #version = 0
  readonly #branchChildrenMax: number
  readonly #allocator: DoublesAllocator

  constructor(options: SumTreeOptions = {}) {
    const leafPointsMax = options.leafPointsMax ?? leafPointsMaxDefault
    const branchChildrenMax = options.branchChildrenMax ?? branchChildrenMaxDefault
    // Assertions a caller can trip carry messages: without one, node:assert re-reads and parses the source.
    assert(Number.isInteger(leafPointsMax), `leafPointsMax must be an integer: ${leafPointsMax}`)
    assert(leafPointsMax >= nodeEntriesMin && leafPointsMax <= nodeEntriesMax, `leafPointsMax out of bounds: ${leafPointsMax}`)
    assert(Number.isInteger(branchChildrenMax), `branchChildrenMax must be an integer: ${branchChildrenMax}`)
    assert(branchChildrenMax >= nodeEntriesMin && branchChildrenMax <= nodeEntriesMax, `branchChildrenMax out of bounds: ${branchChildrenMax}`)
    this.#branchChildrenMax = branchChildrenMax
    this.#allocator = options.allocator ?? separateArrays
    this.#lastLeaf = new Leaf(leafPointsMax, this.#allocator)
    this.#root = this.#lastLeaf
  }

  /**
   * A tree of exactly these points, given in strictly ascending (atMs, seq) order: built bottom-up with
   * full nodes in O(n), where n inserts would cost O(n log n) and a copy-on-split per leaf (a snapshot
   * load rebuilds million-point indexes this way). The same checks as insert, and the same range rule:
   * throws, building nothing usable, on a key out of order, a non-integer, or a range sum beyond the
   * safe range.
   */
  static fromSorted(atMs: ArrayLike<number>, seqs: ArrayLike<number>, amounts: ArrayLike<number>, count: number, options: SumTreeOptions = {}): SumTree {
    const tree = new SumTree(options)
    if (count === 0) return tree
    let leaf = tree.#lastLeaf
    const capacity = leaf.capacity
    const leaves: Leaf[] = []
    // The prefix sums of the whole sequence, and their extremes counting the empty prefix: the range rule.
    let prefix = 0
    let prefixMax = 0
    let prefixMin = 0
    for (let i = 0; i < count; i++) {
      const pointAtMs = atMs[i]
      const seq = seqs[i]
      const amount = amounts[i]
      if (!Number.isSafeInteger(pointAtMs)) assert.fail(`atMs must be a safe integer: ${pointAtMs}`)
      if (!Number.isSafeInteger(seq)) assert.fail(`seq must be a safe integer: ${seq}`)
      if (!Number.isSafeInteger(amount)) throw new RangeError(`Amount ${amount} is not a safe integer.`)
      if (i > 0 && !keyBefore(atMs[i - 1], seqs[i - 1], pointAtMs, seq)) assert.fail(`points out of order at ${i}: (${atMs[i - 1]}, ${seqs[i - 1]}) then (${pointAtMs}, ${seq})`)
      prefix += amount
      if (prefix > prefixMax) prefixMax = prefix
      if (prefix < prefixMin) prefixMin = prefix
      // Exact while it holds: every prefix so far is within the spread, so every sum above was safe.
      if (prefixMax - prefixMin > Number.MAX_SAFE_INTEGER) throw new RangeError(`Adding ${amount} at ${pointAtMs} would take a sum beyond the safe integer range.`)
      if (leaf.length === capacity) {
        const next = new Leaf(capacity, tree.#allocator)
        leaf.next = next
        leaves.push(leaf)
        leaf = next
      }
      const position = leaf.length
      const data = leaf.data
      const running = (position === 0 ? 0 : data[2 * capacity + position - 1]) + amount
      data[position] = pointAtMs
      data[capacity + position] = seq
      data[2 * capacity + position] = running
      if (running > leaf.maxPrefix) leaf.maxPrefix = running
      if (running < leaf.minPrefix) leaf.minPrefix = running
      leaf.length = position + 1
    }
    leaves.push(leaf)
    tree.#lastLeaf = leaf
    let level: TreeNode[] = leaves
    let height = 1
    const fanOut = tree.#branchChildrenMax
    while (level.length > 1) {
      const parents: TreeNode[] = []
      for (let first = 0; first < level.length; first += fanOut) {
        const branch = new Branch(fanOut, tree.#allocator)
        for (let i = first; i < Math.min(first + fanOut, level.length); i++) branch.children.push(level[i])
        refreshBranch(branch, 0)
        parents.push(branch)
      }
      level = parents
      height += 1
    }
    tree.#root = level[0]
    tree.#height = height
    return tree
  }

  get size(): number {
    return this.#root.count
  }

  get total(): number {
    return this.#root.sum
  }

  /**
   * The largest range sum's bound: max prefix − min prefix. Each insert of a moves it by at most |a|, so
   * inserts whose |a| add up to at most MAX_SAFE_INTEGER − spread all keep every range safe (a batch's bound).
   */
  get spread(): number {
    return this.#root.maxPrefix - this.#root.minPrefix
  }

  /** Levels including the leaves: 1 for a lone leaf. */
  get height(): number {
    return this.#height
  }

  /**
   * Whether insert(atMs, seq, amount) would keep every range sum safe. seq defaults to after every point
   * at atMs, the slot a new entry (whose seq exceeds all earlier ones) takes.
   */
  canInsert(atMs: number, amount: number, seq: number = Number.POSITIVE_INFINITY): boolean {
    // Messages are built only on failure: a template literal argument would format numbers on every call.
    if (!Number.isSafeInteger(atMs)) assert.fail(`atMs must be a safe integer: ${atMs}`)
    if (seq !== Number.POSITIVE_INFINITY && !Number.isSafeInteger(seq)) assert.fail(`seq must be a safe integer: ${seq}`)
    if (!Number.isSafeInteger(amount)) return false
    return this.#keepsRangesSafe(atMs, seq, amount)
  }

  /** Adds a point. Throws RangeError, leaving the tree untouched, when a range sum would leave the safe range. */
  insert(atMs: number, seq: number, amount: number): void {
    if (!Number.isSafeInteger(atMs)) assert.fail(`atMs must be a safe integer: ${atMs}`)
    if (!Number.isSafeInteger(seq)) assert.fail(`seq must be a safe integer: ${seq}`)
    if (!Number.isSafeInteger(amount)) throw new RangeError(`Amount ${amount} is not a safe integer.`)
    if (!this.#keepsRangesSafe(atMs, seq, amount)) {
      throw new RangeError(`Adding ${amount} at ${atMs} would take a sum beyond the safe integer range.`)
    }
    const sibling = insertInto(this.#root, atMs, seq, amount, true)
    if (sibling !== null) {
      const root = new Branch(this.#branchChildrenMax, this.#allocator)
      root.children.push(this.#root, sibling)
      refreshBranch(root, 0)
      this.#root = root
      this.#height += 1
    }
    // A split of the last leaf puts exactly one new leaf after it.
    if (this.#lastLeaf.next !== null) this.#lastLeaf = this.#lastLeaf.next
    this.#version += 1
    assert(Number.isSafeInteger(this.#root.sum), 'the total left the safe range')
    assert(this.#root.maxPrefix - this.#root.minPrefix <= Number.MAX_SAFE_INTEGER, 'a range sum left the safe range')
  }

  /** Sum of every point with key.atMs <= atMs. */
  sumAtOrBefore(atMs: number): number {
    return this.#prefix(atMs, true, false)
  }

  /** Sum of every point with key.atMs < atMs. */
  sumBefore(atMs: number): number {
    return this.#prefix(atMs, false, false)
  }

  /** Movement over [fromMs, toMs): sumBefore(toMs) − sumBefore(fromMs), negated when toMs < fromMs. */
  sumRange(fromMs: number, toMs: number): number {
    // Exact: both are prefix sums and their difference is a range sum, which the range rule keeps safe.
    const movement = this.sumBefore(toMs) - this.sumBefore(fromMs)
    assert(Number.isSafeInteger(movement), 'a range sum left the safe range')
    return movement
  }

  countBefore(atMs: number): number {
    return this.#prefix(atMs, false, true)
  }

  countAtOrBefore(atMs: number): number {
    return this.#prefix(atMs, true, true)
  }

  /** Every point in ascending (atMs, seq) order, each a fresh object. */
  iterate(): IterableIterator<SumTreePoint> {
    return this.iterateFrom(Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY)
  }

  /** Points with key >= (atMs, seq) in ascending order, each a fresh object: O(log n) to start, O(1) each. */
  *iterateFrom(atMs: number, seq: number): IterableIterator<SumTreePoint> {
    assert(!Number.isNaN(atMs), 'atMs must be a number')
    assert(!Number.isNaN(seq), 'seq must be a number')
    const version = this.#version
    let node = this.#root
    while (node instanceof Branch) {
      const rank = rankOfKey(node.childFirstAtMs, node.childFirstSeq, 0, node.children.length, atMs, seq, true)
      node = node.children[Math.max(0, rank - 1)]
    }
    let position = rankOfKey(node.data, node.data, node.capacity, node.length, atMs, seq, false)
    for (let leaf: Leaf | null = node; leaf !== null; leaf = leaf.next, position = 0) {
      const data = leaf.data
      const runningAt = 2 * leaf.capacity
      for (; position < leaf.length; position++) {
        const amount = position === 0 ? data[runningAt] : data[runningAt + position] - data[runningAt + position - 1]
        yield { atMs: data[position], seq: data[leaf.capacity + position], amount }
        assert(this.#version === version, 'SumTree changed while an iterator was open')
      }
    }
  }

  /** Costly full check of every invariant, for tests: order, aggregates, links, balance and the range rule. */
  verify(): void {
    const leaves: Leaf[] = []
    const aggregate = verifyNode(this.#root, this.#height, leaves)
    assert.equal(aggregate.count, this.size)
    assert.equal(aggregate.sum, this.total)
    assert(this.#root.maxPrefix - this.#root.minPrefix <= Number.MAX_SAFE_INTEGER)
    for (let i = 0; i < leaves.length; i++) assert.equal(leaves[i].next, leaves[i + 1] ?? null)
    assert.equal(this.#lastLeaf, leaves[leaves.length - 1])
    let previous: SumTreePoint | null = null
    for (const point of this.iterate()) {
      if (previous !== null) assert(keyBefore(previous.atMs, previous.seq, point.atMs, point.seq))
      previous = point
    }
  }

  #keepsRangesSafe(atMs: number, seq: number, amount: number): boolean {
    // Fast path: a point moves each prefix by 0 or amount, so the spread grows by at most |amount|.
    // Balances far from 2^53 never need the O(log n) walk. Exact: the spread is an old range sum and
    // one added safe integer only rounds results already above the limit.
    const spread = this.#root.maxPrefix - this.#root.minPrefix
    if (spread + Math.abs(amount) <= Number.MAX_SAFE_INTEGER) return true
    return keepsRangesSafe(extremesAround(this.#root, atMs, seq), amount)
  }

  /** Sum (or count) of points before atMs, or at or before it when inclusive. */
  #prefix(atMs: number, inclusive: boolean, counting: boolean): number {
    assert(!Number.isNaN(atMs), 'atMs must be a number')
    const last = this.#lastLeaf
    if (last.length > 0 && (inclusive ? last.data[last.length - 1] <= atMs : last.data[last.length - 1] < atMs)) {
      return counting ? this.size : this.total
    }
    let node = this.#root
    let total = 0
    while (node instanceof Branch) {
      const rank = rankByTime(node.childFirstAtMs, node.children.length, atMs, inclusive)
      if (rank === 0) return total
      if (rank > 1) total += counting ? node.runningCounts[rank - 2] : node.runningSums[rank - 2]
      node = node.children[rank - 1]
    }
    const rank = rankByTime(node.data, node.length, atMs, inclusive)
    if (rank > 0) total += counting ? rank : node.data[2 * node.capacity + rank - 1]
    assert(Number.isSafeInteger(total), 'a prefix sum left the safe range')
    return total
  }
}

function keyBefore(atMs: number, seq: number, otherAtMs: number, otherSeq: number): boolean {
  return atMs < otherAtMs || (atMs === otherAtMs && seq < otherSeq)
}

/** How many leading keys sort before (atMs, seq), or at or before it when inclusive. */
function rankOfKey(atMsValues: Float64Array, seqValues: Float64Array, seqStart: number, length: number, atMs: number, seq: number, inclusive: boolean): number {
  let low = 0
  let high = length
  // Appends are the common case: one comparison with the last key settles them.
  if (length > 0 && keyBefore(atMsValues[length - 1], seqValues[seqStart + length - 1], atMs, seq)) return length
  while (low < high) {
    const middle = (low + high) >>> 1
    const middleAtMs = atMsValues[middle]
    const middleSeq = seqValues[seqStart + middle]
    const before = middleAtMs < atMs || (middleAtMs === atMs && (inclusive ? middleSeq <= seq : middleSeq < seq))
    if (before) low = middle + 1
    else high = middle
  }
  return low
}

/** How many leading keys have atMs before the given one, or at or before it when inclusive. */
function rankByTime(atMsValues: Float64Array, length: number, atMs: number, inclusive: boolean): number {
  let low = 0
  let high = length
  while (low < high) {
    const middle = (low + high) >>> 1
    const before = inclusive ? atMsValues[middle] <= atMs : atMsValues[middle] < atMs
    if (before) low = middle + 1
    else high = middle
  }
  return low
}

/** The range rule after adding amount at the slot the extremes were taken around; see SumTree. */
function keepsRangesSafe(extremes: Extremes, amount: number): boolean {
  // New extremes: max(beforeMax, afterMax + amount) and min(beforeMin, afterMin + amount). The two
  // same-side spreads are old ranges, safe already; the cross spreads are checked here. Each difference
  // of old prefixes is exact, and one added safe integer only rounds results already above the limit.
  const risingSpread = extremes.afterMax - extremes.beforeMin
  const fallingSpread = extremes.beforeMax - extremes.afterMin
  return amount + risingSpread <= Number.MAX_SAFE_INTEGER && fallingSpread - amount <= Number.MAX_SAFE_INTEGER
}

function extremesAround(root: TreeNode, atMs: number, seq: number): Extremes {
  const extremes: Extremes = { beforeMax: 0, beforeMin: 0, afterMax: Number.NEGATIVE_INFINITY, afterMin: Number.POSITIVE_INFINITY }
  let node = root
  let offset = 0
  while (node instanceof Branch) {
    const length = node.children.length
    const index = Math.max(0, rankOfKey(node.childFirstAtMs, node.childFirstSeq, 0, length, atMs, seq, true) - 1)
    for (let i = 0; i < length; i++) {
      if (i === index) continue
      const start = offset + (i === 0 ? 0 : node.runningSums[i - 1])
      const side = i < index
      include(extremes, side, start + node.childMaxPrefix[i])
      include(extremes, side, start + node.childMinPrefix[i])
    }
    if (index > 0) offset += node.runningSums[index - 1]
    node = node.children[index]
  }
  const runningAt = 2 * node.capacity
  const position = rankOfKey(node.data, node.data, node.capacity, node.length, atMs, seq, false)
  const boundary = offset + (position === 0 ? 0 : node.data[runningAt + position - 1])
  include(extremes, true, offset)
  include(extremes, true, boundary)
  include(extremes, false, boundary)
  for (let i = 0; i < node.length; i++) include(extremes, i < position, offset + node.data[runningAt + i])
  return extremes
}

function include(extremes: Extremes, before: boolean, prefix: number): void {
  if (before) {
    if (prefix > extremes.beforeMax) extremes.beforeMax = prefix
    if (prefix < extremes.beforeMin) extremes.beforeMin = prefix
  } else {
    if (prefix > extremes.afterMax) extremes.afterMax = prefix
    if (prefix < extremes.afterMin) extremes.afterMin = prefix
  }
}

/** Inserts into the subtree; returns the new right sibling when the node split. */
function insertInto(node: TreeNode, atMs: number, seq: number, amount: number, rightmost: boolean): TreeNode | null {
  if (node instanceof Leaf) return insertIntoLeaf(node, atMs, seq, amount, rightmost)
  const children = node.children
  const index = Math.max(0, rankOfKey(node.childFirstAtMs, node.childFirstSeq, 0, children.length, atMs, seq, true) - 1)
  const sibling = insertInto(children[index], atMs, seq, amount, rightmost && index === children.length - 1)
  if (sibling !== null) children.splice(index + 1, 0, sibling)
  if (children.length <= node.capacity) {
    absorbChildInsert(node, index, amount, sibling)
    return null
  }
  // Appending keeps the left node full, so a time-ordered history packs nodes completely.
  const keep = rightmost && index + 1 === node.capacity ? node.capacity : node.capacity >>> 1
  const right = new Branch(node.capacity, node.allocator)
  for (const child of children.splice(keep)) right.children.push(child)
  refreshBranch(node, Math.min(index, keep))
  refreshBranch(right, 0)
  return right
}

function insertIntoLeaf(leaf: Leaf, atMs: number, seq: number, amount: number, rightmost: boolean): Leaf | null {
  const position = rankOfKey(leaf.data, leaf.data, leaf.capacity, leaf.length, atMs, seq, false)
  const duplicate = position < leaf.length && leaf.data[position] === atMs && leaf.data[leaf.capacity + position] === seq
  if (duplicate) assert.fail(`SumTree already holds the key (${atMs}, ${seq})`)
  if (leaf.length < leaf.capacity) {
    writePoint(leaf, position, atMs, seq, amount)
    return null
  }
  // Appending keeps the left leaf full; anywhere else halves it so both halves have room for more.
  const keep = rightmost && position === leaf.capacity ? leaf.capacity : leaf.capacity >>> 1
  const right = new Leaf(leaf.capacity, leaf.allocator)
  moveTail(leaf, keep, right)
  right.next = leaf.next
  leaf.next = right
  if (position <= keep && keep < leaf.capacity) writePoint(leaf, position, atMs, seq, amount)
  else writePoint(right, position - keep, atMs, seq, amount)
  return right
}

/** Writes a point at position of a leaf with room, shifting later points and raising their running sums. */
function writePoint(leaf: Leaf, position: number, atMs: number, seq: number, amount: number): void {
  const data = leaf.data
  const seqAt = leaf.capacity
  const runningAt = 2 * leaf.capacity
  for (let i = leaf.length; i > position; i--) {
    data[i] = data[i - 1]
    data[seqAt + i] = data[seqAt + i - 1]
    data[runningAt + i] = data[runningAt + i - 1] + amount
  }
  data[position] = atMs
  data[seqAt + position] = seq
  const running = (position === 0 ? 0 : data[runningAt + position - 1]) + amount
  data[runningAt + position] = running
  leaf.length += 1
  if (position === leaf.length - 1) {
    // An append only adds one prefix, so the extremes widen without a rescan.
    if (running > leaf.maxPrefix) leaf.maxPrefix = running
    if (running < leaf.minPrefix) leaf.minPrefix = running
  } else {
    foldLeafExtremes(leaf)
  }
}

/** Moves the leaf's points from keep on into the empty right leaf, rebasing their running sums. */
function moveTail(leaf: Leaf, keep: number, right: Leaf): void {
  const data = leaf.data
  const seqAt = leaf.capacity
  const runningAt = 2 * leaf.capacity
  const base = keep === 0 ? 0 : data[runningAt + keep - 1]
  for (let i = keep; i < leaf.length; i++) {
    right.data[i - keep] = data[i]
    right.data[seqAt + i - keep] = data[seqAt + i]
    right.data[runningAt + i - keep] = data[runningAt + i] - base
  }
  right.length = leaf.length - keep
  leaf.length = keep
  foldLeafExtremes(leaf)
  foldLeafExtremes(right)
}

function foldLeafExtremes(leaf: Leaf): void {
  const data = leaf.data
  const runningAt = 2 * leaf.capacity
  let max = 0
  let min = 0
  for (let i = runningAt; i < runningAt + leaf.length; i++) {
    if (data[i] > max) max = data[i]
    if (data[i] < min) min = data[i]
  }
  leaf.maxPrefix = max
  leaf.minPrefix = min
}

/**
 * Brings a branch up to date after its child at index took one point (and maybe split off sibling at
 * index + 1) without reading the other children: at 1M points they are cold leaves, and touching each
 * one made back-dated inserts several times slower. Later children only move by one slot and amount.
 */
function absorbChildInsert(branch: Branch, index: number, amount: number, sibling: TreeNode | null): void {
  const length = branch.children.length
  // No later child moved (the insert went into the last child, or moved nothing: the entry order's amounts
  // are 0): only this child's summary changes. When its extremes only widened, as an append always does,
  // the branch's widen the same way, without the fold over every child (three levels of 64 at 1M points).
  if (sibling === null && (index === length - 1 || amount === 0)) {
    const child = branch.children[index]
    const widened = child.maxPrefix >= branch.childMaxPrefix[index] && child.minPrefix <= branch.childMinPrefix[index]
    const start = index === 0 ? 0 : branch.runningSums[index - 1]
    writeChildSummary(branch, index, child)
    for (let i = index; i < length; i++) {
      branch.runningSums[i] += amount
      branch.runningCounts[i] += 1
    }
    if (!widened) {
      foldBranchExtremes(branch)
      return
    }
    if (start + child.maxPrefix > branch.maxPrefix) branch.maxPrefix = start + child.maxPrefix
    if (start + child.minPrefix < branch.minPrefix) branch.minPrefix = start + child.minPrefix
    return
  }
  let next = index + 1
  if (sibling !== null) {
    for (const values of [branch.childFirstAtMs, branch.childFirstSeq, branch.childMaxPrefix, branch.childMinPrefix, branch.runningSums, branch.runningCounts]) {
      values.copyWithin(index + 2, index + 1, length - 1)
    }
    next = index + 2
  }
  let sum = index === 0 ? 0 : branch.runningSums[index - 1]
  let count = index === 0 ? 0 : branch.runningCounts[index - 1]
  for (let i = index; i < next; i++) {
    const child = branch.children[i]
    writeChildSummary(branch, i, child)
    sum += child.sum
    count += child.count
    branch.runningSums[i] = sum
    branch.runningCounts[i] = count
  }
  for (let i = next; i < length; i++) {
    branch.runningSums[i] += amount
    branch.runningCounts[i] += 1
  }
  foldBranchExtremes(branch)
}

function writeChildSummary(branch: Branch, index: number, child: TreeNode): void {
  branch.childFirstAtMs[index] = child.firstAtMs
  branch.childFirstSeq[index] = child.firstSeq
  branch.childMaxPrefix[index] = child.maxPrefix
  branch.childMinPrefix[index] = child.minPrefix
}

/** Re-reads children from `from` on (first keys, totals, extremes), then refolds the branch's extremes. */
function refreshBranch(branch: Branch, from: number): void {
  const children = branch.children
  let sum = from === 0 ? 0 : branch.runningSums[from - 1]
  let count = from === 0 ? 0 : branch.runningCounts[from - 1]
  for (let i = from; i < children.length; i++) {
    const child = children[i]
    writeChildSummary(branch, i, child)
    // Exact: each running sum is a range sum of the tree, which the range rule keeps safe.
    sum += child.sum
    count += child.count
    branch.runningSums[i] = sum
    branch.runningCounts[i] = count
  }
  foldBranchExtremes(branch)
}

function foldBranchExtremes(branch: Branch): void {
  const children = branch.children
  let max = 0
  let min = 0
  for (let i = 0; i < children.length; i++) {
    const start = i === 0 ? 0 : branch.runningSums[i - 1]
    if (start + branch.childMaxPrefix[i] > max) max = start + branch.childMaxPrefix[i]
    if (start + branch.childMinPrefix[i] < min) min = start + branch.childMinPrefix[i]
  }
  branch.maxPrefix = max
  branch.minPrefix = min
}

interface NodeAggregate {
  readonly sum: number
  readonly count: number
  readonly maxPrefix: number
  readonly minPrefix: number
}

/** Recomputes a subtree's aggregates from its points and asserts every stored copy matches them. */
function verifyNode(node: TreeNode, depth: number, leaves: Leaf[]): NodeAggregate {
  if (node instanceof Leaf) {
    assert.equal(depth, 1, 'every leaf sits at the same depth')
    leaves.push(node)
    let sum = 0
    let maxPrefix = 0
    let minPrefix = 0
    for (let i = 0; i < node.length; i++) {
      const amount = node.data[2 * node.capacity + i] - sum
      assert(Number.isSafeInteger(amount))
      sum += amount
      maxPrefix = Math.max(maxPrefix, sum)
      minPrefix = Math.min(minPrefix, sum)
    }
    assert.deepEqual({ maxPrefix: node.maxPrefix, minPrefix: node.minPrefix }, { maxPrefix, minPrefix })
    return { sum, count: node.length, maxPrefix, minPrefix }
  }
  assert(depth > 1)
  assert(node.children.length >= 1 && node.children.length <= node.capacity)
  let sum = 0
  let count = 0
  let maxPrefix = 0
  let minPrefix = 0
  node.children.forEach((child, i) => {
    assert(child.count > 0, 'no empty node below the root')
    const aggregate = verifyNode(child, depth - 1, leaves)
    assert.deepEqual([node.childFirstAtMs[i], node.childFirstSeq[i]], [child.firstAtMs, child.firstSeq])
    assert.deepEqual([node.childMaxPrefix[i], node.childMinPrefix[i]], [aggregate.maxPrefix, aggregate.minPrefix])
    maxPrefix = Math.max(maxPrefix, sum + aggregate.maxPrefix)
    minPrefix = Math.min(minPrefix, sum + aggregate.minPrefix)
    sum += aggregate.sum
    count += aggregate.count
    assert.deepEqual([node.runningSums[i], node.runningCounts[i]], [sum, count])
  })
  assert.deepEqual({ maxPrefix: node.maxPrefix, minPrefix: node.minPrefix }, { maxPrefix, minPrefix })
  return { sum, count, maxPrefix, minPrefix }
}
