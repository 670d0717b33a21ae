/** Tests for the balance index: unit cases, the range rule, and comparison with a naive sorted-array model. */
import assert from 'node:assert/strict'
import fc from 'fast-check'
import t from 'tap'
import { DoublesArena, SumTree, type SumTreeOptions, type SumTreePoint } from '../../src/ledger/sum-tree.ts'

const safeMax = Number.MAX_SAFE_INTEGER
/** Tiny nodes so a few hundred points split leaves and branches at every level. */
const tiny: SumTreeOptions = { leafPointsMax: 4, branchChildrenMax: 4 }

/** The obvious implementation: a sorted array, linear sums, BigInt for the range rule. */
class Model {
  readonly points: SumTreePoint[] = []

  position(atMs: number, seq: number): number {
    const index = this.points.findIndex((point) => point.atMs > atMs || (point.atMs === atMs && point.seq >= seq))
    return index < 0 ? this.points.length : index
  }

  has(atMs: number, seq: number): boolean {
    const point = this.points[this.position(atMs, seq)]
    return point !== undefined && point.atMs === atMs && point.seq === seq
  }

  /** Every range sum stays safe iff the largest prefix minus the smallest (with 0) does. */
  fits(atMs: number, seq: number, amount: number): boolean {
    if (!Number.isSafeInteger(amount)) return false
    const next = [...this.points]
    next.splice(this.position(atMs, seq), 0, { atMs, seq, amount })
    let prefix = 0n
    let max = 0n
    let min = 0n
    for (const point of next) {
      prefix += BigInt(point.amount)
      if (prefix > max) max = prefix
      if (prefix < min) min = prefix
    }
    return max - min <= BigInt(safeMax)
  }

  insert(atMs: number, seq: number, amount: number): void {
    this.points.splice(this.position(atMs, seq), 0, { atMs, seq, amount })
  }

  sumWhere(keep: (point: SumTreePoint) => boolean): number {
    return this.points.filter(keep).reduce((sum, point) => sum + point.amount, 0)
  }
}

/** Asserts every query the tree answers against the model at one probe time and key. */
function compareAt(tree: SumTree, model: Model, atMs: number, seq: number): void {
  assert.equal(tree.sumBefore(atMs), model.sumWhere((point) => point.atMs < atMs))
  assert.equal(tree.sumAtOrBefore(atMs), model.sumWhere((point) => point.atMs <= atMs))
  assert.equal(tree.countBefore(atMs), model.points.filter((point) => point.atMs < atMs).length)
  assert.equal(tree.countAtOrBefore(atMs), model.points.filter((point) => point.atMs <= atMs).length)
  assert.equal(tree.sumRange(atMs, atMs + 7), model.sumWhere((point) => point.atMs >= atMs && point.atMs < atMs + 7))
  assert.deepEqual([...tree.iterateFrom(atMs, seq)], model.points.slice(model.position(atMs, seq)))
}

function compareAll(tree: SumTree, model: Model): void {
  tree.verify()
  assert.equal(tree.size, model.points.length)
  assert.equal(tree.total, model.sumWhere(() => true))
  assert.deepEqual([...tree.iterate()], model.points)
}

/** A seeded generator (mulberry32), so a failing deterministic test replays exactly. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state)
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296
  }
}

function snapshot(tree: SumTree): object {
  return { size: tree.size, total: tree.total, height: tree.height, points: [...tree.iterate()] }
}

t.test('an empty tree sums to zero everywhere and yields nothing', async (t) => {
  const tree = new SumTree()
  t.equal(tree.size, 0)
  t.equal(tree.total, 0)
  t.equal(tree.height, 1)
  for (const atMs of [Number.MIN_SAFE_INTEGER, -1, 0, 1, safeMax]) {
    t.equal(tree.sumAtOrBefore(atMs), 0)
    t.equal(tree.sumBefore(atMs), 0)
    t.equal(tree.countBefore(atMs), 0)
  }
  t.equal(tree.sumRange(0, 100), 0)
  t.same([...tree.iterate()], [])
  t.same([...tree.iterateFrom(0, 0)], [])
  t.ok(tree.canInsert(0, safeMax))
  t.ok(tree.canInsert(0, -safeMax))
  tree.verify()
})

t.test('a single point counts from its own millisecond on, not one before', async (t) => {
  const tree = new SumTree()
  tree.insert(1_000, 1, 250)
  t.equal(tree.size, 1)
  t.equal(tree.total, 250)
  t.equal(tree.sumAtOrBefore(999), 0)
  t.equal(tree.sumAtOrBefore(1_000), 250)
  t.equal(tree.sumAtOrBefore(1_001), 250)
  t.equal(tree.sumBefore(1_000), 0)
  t.equal(tree.sumBefore(1_001), 250)
  t.equal(tree.sumRange(1_000, 1_001), 250)
  t.equal(tree.sumRange(999, 1_000), 0)
  t.equal(tree.countBefore(1_000), 0)
  t.equal(tree.countAtOrBefore(1_000), 1)
  t.same([...tree.iterate()], [{ atMs: 1_000, seq: 1, amount: 250 }])
  t.same([...tree.iterateFrom(1_000, 1)], [{ atMs: 1_000, seq: 1, amount: 250 }])
  t.same([...tree.iterateFrom(1_000, 2)], [])
  t.same([...tree.iterateFrom(999, 99)], [{ atMs: 1_000, seq: 1, amount: 250 }])
})

t.test('many points at one atMs are all in or all out of a time query', async (t) => {
  for (const options of [tiny, {}]) {
    const tree = new SumTree(options)
    const model = new Model()
    tree.insert(5, 1, 1)
    model.insert(5, 1, 1)
    for (let seq = 2; seq <= 300; seq++) {
      tree.insert(10, seq, seq)
      model.insert(10, seq, seq)
    }
    tree.insert(11, 301, 7)
    model.insert(11, 301, 7)
    t.equal(tree.sumBefore(10), 1)
    t.equal(tree.sumAtOrBefore(10), 1 + (300 * 301) / 2 - 1)
    t.equal(tree.countAtOrBefore(10), 300)
    t.same([...tree.iterateFrom(10, 150)].map((point) => point.seq), model.points.slice(149).map((point) => point.seq))
    compareAll(tree, model)
    compareAt(tree, model, 10, 150)
  }
})

t.test('back-dated inserts land in the middle and at the beginning', async (t) => {
  for (const options of [tiny, {}]) {
    const tree = new SumTree(options)
    const model = new Model()
    let seq = 1
    const add = (atMs: number, amount: number): void => {
      tree.insert(atMs, seq, amount)
      model.insert(atMs, seq, amount)
      seq += 1
    }
    for (let i = 0; i < 500; i++) add(i * 10, i % 7 - 3)
    for (let i = 0; i < 200; i++) add(2_500 + (i % 13), 100)
    for (let i = 0; i < 200; i++) add(-i, -5)
    compareAll(tree, model)
    for (const atMs of [-200, -199, -1, 0, 1, 2_499, 2_500, 2_512, 2_513, 4_990, 5_000]) compareAt(tree, model, atMs, 0)
    t.pass()
  }
})

t.test('appends fill nodes, and the tree grows a level exactly when a full tree overflows', async (t) => {
  const tree = new SumTree(tiny)
  let expectedSum = 0
  for (let n = 1; n <= 4 ** 6 + 1; n++) {
    tree.insert(n, n, n)
    expectedSum += n
    const height = n === 1 ? 1 : Math.ceil(Math.log(n) / Math.log(4) - 1e-9)
    if (tree.height !== height) t.fail(`height ${tree.height} at ${n} points, expected ${height}`)
  }
  t.equal(tree.height, 7)
  t.equal(tree.total, expectedSum)
  tree.verify()
})

t.test('descending and random inserts split nodes at every level', async (t) => {
  const descending = new SumTree(tiny)
  const model = new Model()
  for (let i = 0; i < 600; i++) {
    descending.insert(1_000 - i, i, i)
    model.insert(1_000 - i, i, i)
    if (i % 37 === 0) descending.verify()
  }
  compareAll(descending, model)
  t.ok(descending.height >= 5)
  const random = seededRandom(7)
  const scattered = new SumTree(tiny)
  const scatteredModel = new Model()
  for (let seq = 0; seq < 1_500; seq++) {
    const atMs = Math.floor(random() * 400)
    const amount = Math.floor(random() * 2_001) - 1_000
    scattered.insert(atMs, seq, amount)
    scatteredModel.insert(atMs, seq, amount)
  }
  compareAll(scattered, scatteredModel)
  for (let atMs = -1; atMs <= 401; atMs += 9) compareAt(scattered, scatteredModel, atMs, 700)
  t.ok(scattered.height >= 5)
})

t.test('a duplicate key fails an assertion and changes nothing', async (t) => {
  const tree = new SumTree(tiny)
  for (let i = 0; i < 50; i++) tree.insert(i, 1, 10)
  const before = snapshot(tree)
  t.throws(() => tree.insert(20, 1, 99), assert.AssertionError)
  t.throws(() => tree.insert(0, 1, 99), assert.AssertionError)
  t.throws(() => tree.insert(49, 1, 99), assert.AssertionError)
  t.same(snapshot(tree), before)
  tree.verify()
  tree.insert(20, 2, 99)
  t.equal(tree.total, 599)
})

t.test('programmer errors in keys fail assertions', async (t) => {
  const tree = new SumTree()
  t.throws(() => tree.insert(1.5, 1, 1), assert.AssertionError)
  t.throws(() => tree.insert(1, Number.NaN, 1), assert.AssertionError)
  t.throws(() => tree.insert(2 ** 53, 1, 1), assert.AssertionError)
  t.throws(() => tree.sumBefore(Number.NaN), assert.AssertionError)
  t.throws(() => new SumTree({ leafPointsMax: 2 }), assert.AssertionError)
  t.equal(tree.size, 0)
})

t.test('a RangeError leaves the tree exactly as it was', async (t) => {
  t.test('the total would overflow', async (t) => {
    const tree = new SumTree()
    tree.insert(1, 1, safeMax)
    const before = snapshot(tree)
    t.notOk(tree.canInsert(2, 1))
    t.throws(() => tree.insert(2, 2, 1), RangeError)
    t.same(snapshot(tree), before)
    t.ok(tree.canInsert(2, -safeMax))
    tree.insert(2, 2, -safeMax)
    t.equal(tree.total, 0)
  })
  t.test('a prefix in the middle would overflow though the total would not', async (t) => {
    const tree = new SumTree()
    tree.insert(1, 1, safeMax)
    tree.insert(3, 3, -safeMax)
    const before = snapshot(tree)
    t.notOk(tree.canInsert(2, 1))
    t.throws(() => tree.insert(2, 2, 1), RangeError)
    t.same(snapshot(tree), before)
    t.ok(tree.canInsert(4, 1))
    tree.insert(4, 4, 1)
    t.equal(tree.sumAtOrBefore(2), safeMax)
    tree.verify()
  })
  t.test('every prefix would stay safe but a range sum would not', async (t) => {
    const tree = new SumTree()
    tree.insert(1, 1, safeMax)
    tree.insert(2, 2, -safeMax)
    // Prefixes would be 0, MAX, 0, -1: all safe, but sumRange(2, 4) would be -(MAX + 1).
    t.notOk(tree.canInsert(3, -1))
    t.throws(() => tree.insert(3, 3, -1), RangeError)
    t.equal(tree.size, 2)
    t.equal(tree.sumRange(2, 4), -safeMax)
  })
  t.test('amounts that are not safe integers', async (t) => {
    const tree = new SumTree()
    tree.insert(1, 1, 5)
    for (const amount of [2 ** 53, -(2 ** 53), 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      t.notOk(tree.canInsert(1, amount))
      t.throws(() => tree.insert(2, 2, amount), RangeError)
    }
    t.same(snapshot(tree), { size: 1, total: 5, height: 1, points: [{ atMs: 1, seq: 1, amount: 5 }] })
  })
  t.test('deep in a tall tree', async (t) => {
    const tree = new SumTree(tiny)
    const big = safeMax - 1_000_000
    for (let i = 0; i < 400; i++) tree.insert(i, i, i === 100 ? big : i === 300 ? -big : 1)
    const before = snapshot(tree)
    // Totals would stay small; a prefix inside (100, 300) would overflow, then a range across 300.
    t.throws(() => tree.insert(50, 1_000, 1_000_001), RangeError)
    t.throws(() => tree.insert(350, 1_000, -safeMax), RangeError)
    t.same(snapshot(tree), before)
    tree.verify()
    // 299 ones and big sit at or before 299: this lifts that prefix to exactly MAX.
    tree.insert(50, 1_000, 1_000_000 - 299)
    t.equal(tree.sumAtOrBefore(299), safeMax)
    t.throws(() => tree.insert(50, 1_001, 1), RangeError)
    tree.insert(350, 1_000, -tree.sumAtOrBefore(350))
    t.equal(tree.sumAtOrBefore(350), 0)
    tree.verify()
  })
})

t.test('iteration yields fresh objects and refuses a tree changed under it', async (t) => {
  const tree = new SumTree(tiny)
  for (let i = 0; i < 20; i++) tree.insert(i, i, i)
  const points = [...tree.iterate()]
  t.equal(new Set(points).size, 20)
  const again = [...tree.iterate()]
  t.not(points[3], again[3])
  t.same(points[3], again[3])
  const iterator = tree.iterateFrom(5, 0)
  t.same(iterator.next().value, { atMs: 5, seq: 5, amount: 5 })
  tree.insert(100, 100, 1)
  t.throws(() => iterator.next(), assert.AssertionError)
})

t.test('canInsert without a seq checks the slot after every point at atMs', async (t) => {
  const tree = new SumTree()
  tree.insert(5, 1, safeMax)
  tree.insert(5, 3, -safeMax)
  // After both: prefixes 0, MAX, 0, 1. Between them: 0, MAX, MAX + 1, 1.
  t.ok(tree.canInsert(5, 1))
  t.notOk(tree.canInsert(5, 1, 2))
  t.throws(() => tree.insert(5, 2, 1), RangeError)
  tree.insert(5, 4, 1)
  t.equal(tree.sumAtOrBefore(5), 1)
})

const amountArbitrary = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: -1_000, max: 1_000 }) },
  { weight: 2, arbitrary: fc.constantFrom(safeMax, -safeMax, safeMax - 1, Math.floor(safeMax / 2), -Math.floor(safeMax / 2)) },
  { weight: 1, arbitrary: fc.maxSafeInteger() },
  { weight: 1, arbitrary: fc.constantFrom(2 ** 53, 0.5) },
)
const operationArbitrary = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('insert' as const), atMs: fc.integer({ min: -40, max: 40 }), seq: fc.integer({ min: 0, max: 40 }), amount: amountArbitrary }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('query' as const), atMs: fc.integer({ min: -45, max: 45 }), seq: fc.integer({ min: -1, max: 41 }), amount: fc.constant(0) }) },
)

/** Replays operations against tree and model; every outcome, error or not, must agree. */
function replay(options: SumTreeOptions, operations: readonly { kind: 'insert' | 'query'; atMs: number; seq: number; amount: number }[]): void {
  const tree = new SumTree(options)
  const model = new Model()
  for (const operation of operations) {
    const { atMs, seq, amount } = operation
    if (operation.kind === 'query') {
      compareAt(tree, model, atMs, seq)
      continue
    }
    const fits = model.fits(atMs, seq, amount)
    assert.equal(tree.canInsert(atMs, amount, seq), fits)
    if (!fits) assert.throws(() => tree.insert(atMs, seq, amount), RangeError)
    else if (model.has(atMs, seq)) assert.throws(() => tree.insert(atMs, seq, amount), assert.AssertionError)
    else {
      tree.insert(atMs, seq, amount)
      model.insert(atMs, seq, amount)
    }
  }
  compareAll(tree, model)
}

t.test('random insert and query sequences agree with the model', async (t) => {
  fc.assert(fc.property(fc.array(operationArbitrary, { maxLength: 300, size: 'max' }), (operations) => replay(tiny, operations)), { numRuns: 150 })
  fc.assert(fc.property(fc.array(operationArbitrary, { maxLength: 300, size: 'max' }), (operations) => replay({}, operations)), { numRuns: 50 })
  t.pass()
})

t.test('20k random-time points in a deterministic run: at least 3 levels, sums match', async (t) => {
  const random = seededRandom(20_000)
  const tree = new SumTree()
  const points: SumTreePoint[] = []
  let frontierMs = 0
  for (let seq = 1; seq <= 20_000; seq++) {
    // Mostly appends, a third back-dated anywhere: the shape of a real account.
    frontierMs += Math.floor(random() * 50)
    const atMs = random() < 0.34 ? Math.floor(random() * frontierMs) : frontierMs
    const amount = Math.floor(random() * 2_000_001) - 1_000_000
    tree.insert(atMs, seq, amount)
    points.push({ atMs, seq, amount })
  }
  points.sort((a, b) => a.atMs - b.atMs || a.seq - b.seq)
  const running: number[] = []
  points.reduce((sum, point) => (running.push(sum + point.amount), sum + point.amount), 0)
  const countAtOrBefore = (atMs: number): number => {
    let low = 0
    let high = points.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (points[middle].atMs <= atMs) low = middle + 1
      else high = middle
    }
    return low
  }
  t.ok(tree.height >= 3, `height ${tree.height}`)
  tree.verify()
  t.same([...tree.iterate()], points)
  for (let probe = 0; probe < 2_000; probe++) {
    const atMs = Math.floor(random() * (frontierMs + 20)) - 10
    const count = countAtOrBefore(atMs)
    const countBefore = countAtOrBefore(atMs - 1)
    assert.equal(tree.countAtOrBefore(atMs), count)
    assert.equal(tree.sumAtOrBefore(atMs), count === 0 ? 0 : running[count - 1])
    assert.equal(tree.sumBefore(atMs), countBefore === 0 ? 0 : running[countBefore - 1])
    const page = [...take(tree.iterateFrom(atMs, 0), 5)]
    assert.deepEqual(page, points.slice(countBefore, countBefore + 5))
  }
})

t.test('200k increasing points sum correctly at a few places', async (t) => {
  const tree = new SumTree()
  const pointsCount = 200_000
  // amount(i) = i: the sum of the first k points is k(k − 1)/2.
  for (let i = 0; i < pointsCount; i++) tree.insert(i * 1_000, i + 1, i)
  const sumOfFirst = (k: number): number => (k * (k - 1)) / 2
  t.equal(tree.size, pointsCount)
  t.equal(tree.total, sumOfFirst(pointsCount))
  for (const k of [0, 1, 63, 64, 65, 4_096, 100_000, 199_999]) {
    t.equal(tree.sumBefore(k * 1_000), sumOfFirst(k))
    t.equal(tree.sumAtOrBefore(k * 1_000), sumOfFirst(k + 1))
    t.equal(tree.sumAtOrBefore(k * 1_000 - 1), sumOfFirst(k))
    t.equal(tree.countBefore(k * 1_000 + 1), k + 1)
  }
  t.equal(tree.sumRange(10_000, 20_000), sumOfFirst(20) - sumOfFirst(10))
  t.same([...take(tree.iterateFrom(150_000_000, 0), 2)], [{ atMs: 150_000_000, seq: 150_001, amount: 150_000 }, { atMs: 150_001_000, seq: 150_002, amount: 150_001 }])
  tree.verify()
})

function* take<T>(iterator: Iterator<T>, countMax: number): Generator<T> {
  for (let i = 0; i < countMax; i++) {
    const next = iterator.next()
    if (next.done === true) return
    yield next.value
  }
}

/** The points in the form fromSorted takes. */
function columns(points: readonly SumTreePoint[]): [Float64Array, Float64Array, Float64Array] {
  return [Float64Array.from(points, (point) => point.atMs), Float64Array.from(points, (point) => point.seq), Float64Array.from(points, (point) => point.amount)]
}

t.test('fromSorted builds the tree that inserting the same points builds, and it takes inserts after', async (t) => {
  for (const [options, count] of [[tiny, 0], [tiny, 1], [tiny, 4], [tiny, 5], [tiny, 17], [tiny, 300], [{}, 64], [{}, 65], [{}, 5_000]] as const) {
    const random = seededRandom(count + 7)
    const model = new Model()
    for (let seq = 1; seq <= count; seq++) model.insert(Math.floor(random() * count * 3), seq, Math.floor(random() * 2_001) - 1_000)
    const tree = SumTree.fromSorted(...columns(model.points), model.points.length, options)
    compareAll(tree, model)
    for (const atMs of [-1, 0, 1, Math.floor(count / 2), count * 3]) compareAt(tree, model, atMs, 0)
    // Back-dated and appended inserts split the full nodes it was built with.
    for (let more = 1; more <= 40; more++) {
      const atMs = more % 3 === 0 ? count * 3 + more : Math.floor(random() * count * 3)
      tree.insert(atMs, count + more, more)
      model.insert(atMs, count + more, more)
    }
    compareAll(tree, model)
    compareAt(tree, model, Math.floor(count * 1.5), 0)
  }
  t.pass('equal to the inserted trees, before and after more inserts')
})

t.test('fromSorted refuses what insert refuses: keys out of order or repeated, non-integers, unsafe ranges', async (t) => {
  const build = (points: SumTreePoint[]) => SumTree.fromSorted(...columns(points), points.length, tiny)
  t.throws(() => build([{ atMs: 2, seq: 1, amount: 1 }, { atMs: 1, seq: 2, amount: 1 }]), /out of order/)
  t.throws(() => build([{ atMs: 1, seq: 1, amount: 1 }, { atMs: 1, seq: 1, amount: 1 }]), /out of order/)
  t.throws(() => build([{ atMs: 1, seq: 1, amount: 0.5 }]), RangeError)
  t.throws(() => build([{ atMs: 1.5, seq: 1, amount: 1 }]), /atMs/)
  t.throws(() => build([{ atMs: 1, seq: 1, amount: safeMax }, { atMs: 2, seq: 2, amount: 1 }]), RangeError)
  t.throws(() => build([{ atMs: 1, seq: 1, amount: -safeMax }, { atMs: 2, seq: 2, amount: safeMax }, { atMs: 3, seq: 3, amount: 1 }]), RangeError)
  const edge = build([{ atMs: 1, seq: 1, amount: -safeMax }, { atMs: 2, seq: 2, amount: safeMax }])
  edge.verify()
  t.equal(edge.total, 0)
})

t.test('trees sharing one DoublesArena never write into each other (interleaved inserts and builds, splits at every level)', async (t) => {
  const arena = new DoublesArena()
  const random = seededRandom(2026)
  const pairs: [SumTree, Model][] = []
  for (let i = 0; i < 6; i++) pairs.push([new SumTree({ ...(i % 2 === 0 ? tiny : {}), allocator: arena }), new Model()])
  for (let seq = 1; seq <= 6_000; seq++) {
    const [tree, model] = pairs[Math.floor(random() * pairs.length)]
    const atMs = Math.floor(random() * 50_000)
    const amount = Math.floor(random() * 2_001) - 1_000
    tree.insert(atMs, seq, amount)
    model.insert(atMs, seq, amount)
    // A tree built whole from the same arena in the middle of it all.
    if (seq === 3_000) {
      const built = new Model()
      for (let k = 1; k <= 2_000; k++) built.insert(k * 3, k, k)
      pairs.push([SumTree.fromSorted(...columns(built.points), built.points.length, { allocator: arena }), built])
    }
  }
  // Past a block: arrays larger than an eighth of one get a buffer of their own.
  const large = new SumTree({ leafPointsMax: 1_024, branchChildrenMax: 1_024, allocator: arena })
  const largeModel = new Model()
  for (let seq = 1; seq <= 3_000; seq++) { large.insert(seq, seq, seq % 7); largeModel.insert(seq, seq, seq % 7) }
  pairs.push([large, largeModel])
  for (const [tree, model] of pairs) {
    tree.verify()
    compareAll(tree, model)
  }
  t.pass(`${pairs.length} trees in one arena, each equal to its model`)
})
