/**
 * A standby's follow of one shard's log (src/cluster/pg-tail.ts) against a real PostgreSQL: records after the
 * applied seq handed over in order, page by page, the next page only once the last was taken; an error in taking
 * them stops the follow and is told once; a closed tail hands nothing more; a wake-up during a read makes one more.
 */
import t from 'tap'
import type { LogRecord } from '../../src/cluster/pg-log.ts'
import { gatherMsDefault, PgTail } from '../../src/cluster/pg-tail.ts'
import { pgLogsOnLocalServer } from '../support/pg-logs.ts'

const openLog = pgLogsOnLocalServer(t)
const bytes = (text: string) => new TextEncoder().encode(text)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const text = (record: LogRecord) => Buffer.from(record.record).toString()

/** Waits until `done` holds, 100 ms at a time, 5 s at most. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; waited < 50 && !done(); waited++) await sleep(100)
}

t.test('only what follows the applied seq, in pages of pageRecordsMax, each after the one before was taken', async (t) => {
  t.ok(gatherMsDefault > 0 && gatherMsDefault <= 1000)
  const writer = await openLog('pages-writer')
  const reader = await openLog('pages-reader')
  const owned = (await writer.claim(50))!
  await owned.append(['r1', 'r2', 'r3', 'r4', 'r5', 'r6'].map(bytes))
  const pages: string[][] = []
  let taking = 0
  let overlapped = false
  const tail = await PgTail.start({
    log: reader, shard: 50, appliedSeq: 1, pollMs: 600_000, pageRecordsMax: 2, gatherMs: 10,
    onRecords: async (records) => {
      if (taking > 0) overlapped = true
      taking++
      await sleep(50)
      pages.push(records.map(text))
      taking--
    },
    onError: (error) => t.fail(error.message),
  })
  t.teardown(() => tail.close())
  t.equal(tail.appliedSeq, 1, 'nothing handed over yet at start')
  await until(() => tail.appliedSeq >= 6)
  t.same(pages, [['r2', 'r3'], ['r4', 'r5'], ['r6']], 'r1 was applied; the rest in order, two a page')
  t.equal(overlapped, false, 'the next page waits for the one before')
  t.equal(tail.appliedSeq, 6)
  await owned.append([bytes('r7'), bytes('r8')])
  await until(() => tail.appliedSeq >= 8)
  t.same(pages.at(-1), ['r7', 'r8'], 'a full page read, then an empty one: the follow waits again')
})

t.test('a slow poll reads what no notification announced', async (t) => {
  const writer = await openLog('poll-writer')
  const reader = await openLog('poll-reader')
  const received: string[] = []
  const tail = await PgTail.start({ log: reader, shard: 51, appliedSeq: 0, pollMs: 100, gatherMs: 10, onRecords: (records) => { received.push(...records.map(text)) }, onError: (error) => t.fail(error.message) })
  t.teardown(() => tail.close())
  // Written without its NOTIFY (an owner's append sends one): only the poll finds it.
  await writer.pool.query('INSERT INTO log (shard, seq, epoch, record) VALUES (51, 1, 1, $1)', [Buffer.from('quiet')])
  await until(() => received.length > 0)
  t.same(received, ['quiet'])
})

t.test('an error in taking a page stops the follow and is told once', async (t) => {
  const writer = await openLog('error-writer')
  const reader = await openLog('error-reader')
  const owned = (await writer.claim(53))!
  await owned.append([bytes('e1')])
  const errors: string[] = []
  let calls = 0
  const tail = await PgTail.start({
    log: reader, shard: 53, appliedSeq: 0, pollMs: 50, gatherMs: 10,
    onRecords: () => { calls++; throw new Error('the local log refused it') },
    onError: (error) => errors.push(error.message),
  })
  t.teardown(() => tail.close())
  await until(() => errors.length > 0)
  await owned.append([bytes('e2')])
  await sleep(300)
  t.same(errors, ['the local log refused it'])
  t.equal(calls, 1, 'no read after the error, the poll stopped too')
  t.equal(tail.appliedSeq, 0, 'what was not taken is not counted as applied')
})

t.test('a closed tail hands nothing more; closing twice is harmless', async (t) => {
  const writer = await openLog('close-writer')
  const reader = await openLog('close-reader')
  const owned = (await writer.claim(54))!
  const received: string[] = []
  const tail = await PgTail.start({ log: reader, shard: 54, appliedSeq: 0, pollMs: 50, gatherMs: 10, onRecords: (records) => { received.push(...records.map(text)) }, onError: (error) => t.fail(error.message) })
  await owned.append([bytes('c1')])
  await until(() => received.length >= 1)
  await tail.close()
  await tail.close()
  await owned.append([bytes('c2')])
  tail.wake()
  await sleep(300)
  t.same(received, ['c1'])
  t.equal(tail.appliedSeq, 1)
})

t.test('a wake-up during a read makes one more read after it', async (t) => {
  const writer = await openLog('again-writer')
  const reader = await openLog('again-reader')
  const owned = (await writer.claim(55))!
  await owned.append([bytes('a1')])
  const pages: string[][] = []
  let release: () => void = () => undefined
  const tail = await PgTail.start({
    log: reader, shard: 55, appliedSeq: 0, pollMs: 600_000, gatherMs: 10,
    onRecords: async (records) => {
      pages.push(records.map(text))
      if (pages.length === 1) await new Promise<void>((resolve) => { release = resolve })
    },
    onError: (error) => t.fail(error.message),
  })
  t.teardown(() => tail.close())
  await until(() => pages.length === 1)
  await owned.append([bytes('a2')])
  await sleep(200)
  t.same(pages, [['a1']], 'held in the first read: its notification waits')
  release()
  await until(() => pages.length === 2)
  t.same(pages, [['a1'], ['a2']])
})
