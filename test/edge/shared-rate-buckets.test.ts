/**
 * A workspace's rate budget shared by threads (src/edge/shared-rate-buckets.ts): four threads taking from one
 * workspace's write bucket at once pass exactly its capacity between them, as one thread alone would; buckets of
 * each thread's own (RateBuckets, as one thread's edge keeps them) pass more.
 */
import { Worker } from 'node:worker_threads'
import t from 'tap'
import { SharedRateBuckets } from '../../src/edge/shared-rate-buckets.ts'
import { settingsDefault, type WorkspaceRecord } from '../../src/ledger/system.ts'

const nowMs = Date.parse('2026-11-27T08:00:00.000Z')
const threadsCount = 4
/** A burst of 100,000 tokens (no refill: the clock stands still), more than one thread takes alone, so the threads overlap. */
const writesPerMinute = 200_000
const takesPerThread = 40_000

function workspace(id: string): WorkspaceRecord {
  return { id, timeZone: 'UTC', currency: 'USD', limits: { writes_per_minute: writesPerMinute, reads_per_minute: 1000 }, limitsChangedAtMs: nowMs, settings: settingsDefault, tag: 't', createdAtMs: nowMs, sealKey: null, sealKeyAtCreation: false }
}

// Each thread: wait for the go (a shared flag, so all start at once), then try its takes; post how many passed.
const threadSource = `
const { parentPort, workerData } = require('node:worker_threads')
import('tsx/esm/api').then((tsx) => { tsx.register(); return Promise.all([import(workerData.shared), import(workerData.local)]) }).then(([{ SharedRateBuckets }, { RateBuckets }]) => {
  const buckets = workerData.buffer === null ? new RateBuckets() : new SharedRateBuckets(workerData.buffer, () => 3)
  const record = workerData.record
  const { writes } = buckets.of(record, workerData.nowMs)
  parentPort.postMessage('ready')
  Atomics.wait(workerData.go, 0, 0)
  let passed = 0
  for (let index = 0; index < workerData.takes; index++) if (writes.tryTake(workerData.nowMs)) passed++
  parentPort.postMessage(passed)
})`

async function takenAtOnce(buffer: SharedArrayBuffer | null): Promise<number[]> {
  const go = new Int32Array(new SharedArrayBuffer(4))
  const workerData = {
    buffer, record: workspace('w'), nowMs, go, takes: takesPerThread,
    shared: new URL('../../src/edge/shared-rate-buckets.ts', import.meta.url).href, local: new URL('../../src/edge/rate-buckets.ts', import.meta.url).href,
  }
  const workers = Array.from({ length: threadsCount }, () => new Worker(threadSource, { eval: true, workerData }))
  await Promise.all(workers.map((worker) => new Promise((ready) => worker.once('message', ready))))
  const passed = workers.map((worker) => new Promise<number>((done) => worker.once('message', done)))
  Atomics.store(go, 0, 1)
  Atomics.notify(go, 0)
  const counts = await Promise.all(passed)
  await Promise.all(workers.map((worker) => worker.terminate()))
  return counts
}

t.test('four threads taking at once from one shared bucket pass exactly its capacity', async (t) => {
  const buffer = SharedRateBuckets.allocate(8)
  const counts = await takenAtOnce(buffer)
  t.equal(counts.reduce((sum, each) => sum + each, 0), writesPerMinute / 2, `${counts.join(' + ')} passed`)
  // The main thread sees the same bucket: empty.
  const here = new SharedRateBuckets(buffer, () => 3).of(workspace('w'), nowMs)
  t.equal(here.writes.remaining(nowMs), 0, 'empty on this thread too')
  t.equal(here.reads.remaining(nowMs), 500, 'the read bucket untouched and full')
  const other = new SharedRateBuckets(buffer, () => 4).of(workspace('other'), nowMs)
  t.equal(other.writes.remaining(nowMs), writesPerMinute / 2, 'another workspace\'s slot is its own')
})

t.test('each thread\'s own buckets would pass more than the capacity between them', async (t) => {
  const counts = await takenAtOnce(null)
  t.same(counts, Array.from({ length: threadsCount }, () => takesPerThread), 'every take passes on every thread')
  t.ok(threadsCount * takesPerThread > writesPerMinute / 2)
})

t.test('a limit changed is applied once, whichever thread sees it first', async (t) => {
  const buffer = SharedRateBuckets.allocate(2)
  const record = workspace('w')
  record.limits = { writes_per_minute: 120, reads_per_minute: 1000 }
  const first = new SharedRateBuckets(buffer, () => 0)
  const second = new SharedRateBuckets(buffer, () => 0)
  t.equal(first.of(record, nowMs).writes.remaining(nowMs), 60)
  record.limits = { writes_per_minute: 12, reads_per_minute: 1000 }
  record.limitsChangedAtMs = nowMs + 1000
  t.equal(first.of(record, nowMs + 1000).writes.remaining(nowMs + 1000), 6, 'cut to the new burst')
  t.equal(second.of(record, nowMs + 1000).writes.remaining(nowMs + 1000), 6, 'the other thread sees the same, not cut again')
  t.ok(second.of(record, nowMs + 1000).writes.tryTake(nowMs + 1000))
  t.equal(first.of(record, nowMs + 1000).writes.remaining(nowMs + 1000), 5)
})
