/** @module The replicated log in PostgreSQL (src/cluster/pg-log.ts, pg-tail.ts) against a real PostgreSQL: order, fencing, leases, tailing, bytes. */

import crypto from 'node:crypto'
import pg from 'pg'
import t from 'tap'
import { FencedError, PgLog, type LogRecord } from '../../src/cluster/pg-log.ts'
import { PgTail } from '../../src/cluster/pg-tail.ts'
import { pgLogsOnLocalServer } from '../support/pg-logs.ts'

const openLog = pgLogsOnLocalServer(t)

const bytes = (text: string) => new TextEncoder().encode(text)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('appends are read back in order with their seqs and epoch', async (t) => {
  const log = await openLog('node-a')
  const owned = await log.claim(1)
  t.ok(owned)
  t.same(await owned!.append([bytes('one'), bytes('two'), bytes('three')]), { firstSeq: 1, lastSeq: 3 })
  t.same(await owned!.append([bytes('four'), bytes('five')]), { firstSeq: 4, lastSeq: 5 })
  const read = await log.read(1, 0, 100)
  t.same(read.map((r) => [r.seq, r.epoch, Buffer.from(r.record).toString()]), [[1, 1, 'one'], [2, 1, 'two'], [3, 1, 'three'], [4, 1, 'four'], [5, 1, 'five']])
  t.same((await log.read(1, 3, 1)).map((r) => r.seq), [4], 'after a seq, bounded by the limit')
  t.same(await log.read(2, 0, 100), [], 'another shard has its own log')
})

t.test('two owners racing for a new shard and for a lapsed one: exactly one wins each time', async (t) => {
  const [a, b, c] = await Promise.all([openLog('race-a', 300), openLog('race-b', 300), openLog('race-c', 300)])
  const claims = await Promise.all([a.claim(10), b.claim(10), c.claim(10)])
  t.equal(claims.filter((claim) => claim !== null).length, 1, 'one claim')
  const first = await a.placement(10)
  t.equal(first!.epoch, 1)
  await sleep(500)
  const seen = await a.placement(10)
  t.ok(seen!.lapsed)
  const takeovers = await Promise.all([a.takeover(10, seen!.epoch), b.takeover(10, seen!.epoch), c.takeover(10, seen!.epoch)])
  const winners = takeovers.filter((owned) => owned !== null)
  t.equal(winners.length, 1, 'one takeover')
  t.equal(winners[0]!.epoch, 2)
  t.equal((await a.placement(10))!.epoch, 2)
})

t.test('a stale-epoch owner cannot append, renew, and nothing of its append is written', async (t) => {
  const old = await openLog('stale-old', 200)
  const next = await openLog('stale-new', 10_000)
  const oldOwned = (await old.claim(20))!
  await oldOwned.append([bytes('before')])
  await sleep(400)
  const nextOwned = await next.acquire(20)
  t.ok(nextOwned, 'the lapsed shard is taken')
  t.equal(nextOwned!.epoch, 2)
  t.equal(nextOwned!.nextSeq, 2, 'the new owner continues after the old owner\'s last record')
  await t.rejects(oldOwned.append([bytes('late 1'), bytes('late 2')]), FencedError)
  t.ok(oldOwned.lost)
  t.equal(await oldOwned.renew(), false)
  await nextOwned!.append([bytes('after')])
  const read = await next.read(20, 0, 100)
  t.same(read.map((r) => [r.seq, r.epoch, Buffer.from(r.record).toString()]), [[1, 1, 'before'], [2, 2, 'after']])
})

t.test('an append in flight when a takeover comes is either in the new owner\'s tail or refused', async (t) => {
  const old = await openLog('flight-old', 100)
  const next = await openLog('flight-new', 10_000)
  const oldOwned = (await old.claim(25))!
  await sleep(250)
  const appending = oldOwned.append([bytes('racing')]).then(() => 'written', (error) => error instanceof FencedError ? 'fenced' : String(error))
  const nextOwned = (await next.acquire(25))!
  const outcome = await appending
  const read = await next.read(25, 0, 100)
  if (outcome === 'written') t.equal(nextOwned.nextSeq, 2, 'written before the takeover: the new owner continues after it')
  else t.same([outcome, read.length, nextOwned.nextSeq], ['fenced', 0, 1], 'refused: nothing written')
})

t.test('a lease renewed keeps the shard; once it lapses another node takes it over', async (t) => {
  const owner = await openLog('lease-owner', 400)
  const other = await openLog('lease-other', 400)
  const owned = (await owner.claim(30))!
  t.equal(await other.acquire(30), null, 'a running lease is not taken')
  for (let i = 0; i < 3; i++) {
    await sleep(200)
    t.equal(await owned.renew(), true)
  }
  t.equal(await other.takeover(30, 1), null, 'renewed: still not lapsed after more than one lease')
  await sleep(600)
  const taken = await other.takeover(30, 1)
  t.ok(taken, 'lapsed: taken over')
  t.same(await other.placement(30), { shard: 30, owner: 'lease-other', epoch: 2, lapsed: false })
  t.equal(await owned.renew(), false, 'the old owner learns it lost the shard')
})

t.test('a tail is woken by NOTIFY (its poll is far off) and hands records over in order', async (t) => {
  const writer = await openLog('tail-writer')
  const reader = await openLog('tail-reader')
  const owned = (await writer.claim(40))!
  await owned.append([bytes('old')])
  const received: LogRecord[] = []
  let wake: () => void = () => undefined
  const tail = await PgTail.start({
    log: reader, shard: 40, appliedSeq: 1, pollMs: 600_000,
    onRecords: (records) => { received.push(...records); wake() }, onError: (error) => t.fail(error.message),
  })
  t.teardown(() => tail.close())
  await sleep(200)
  t.same(received, [], 'nothing after the applied seq yet')
  const arrived = new Promise<void>((resolve) => { wake = () => { if (received.length >= 3) resolve() } })
  const appendedAt = Date.now()
  await owned.append([bytes('a'), bytes('b')])
  await owned.append([bytes('c')])
  await Promise.race([arrived, sleep(5_000)])
  t.same(received.map((r) => [r.seq, Buffer.from(r.record).toString()]), [[2, 'a'], [3, 'b'], [4, 'c']])
  t.ok(Date.now() - appendedAt < 5_000, 'woken well before the poll')
  t.equal(tail.appliedSeq, 4)
})

t.test('a tail gathers the group commits announced within its gathering into one read and one page', async (t) => {
  const writer = await openLog('gather-writer')
  const reader = await openLog('gather-reader')
  const owned = (await writer.claim(41))!
  const pages: number[][] = []
  const tail = await PgTail.start({
    log: reader, shard: 41, appliedSeq: 0, pollMs: 600_000, gatherMs: 1_000,
    onRecords: (records) => { pages.push(records.map((record) => record.seq)) }, onError: (error) => t.fail(error.message),
  })
  t.teardown(() => tail.close())
  // Five group commits one after the other, each announced by its own NOTIFY, well within one gathering.
  for (let commit = 0; commit < 5; commit++) await owned.append([bytes(`g${commit}`), bytes(`h${commit}`)])
  for (let waited = 0; waited < 50 && tail.appliedSeq < 10; waited++) await sleep(100)
  t.same(pages, [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]], 'one page holds the five group commits')
  await owned.append([bytes('later')])
  for (let waited = 0; waited < 50 && tail.appliedSeq < 11; waited++) await sleep(100)
  t.same(pages.slice(1), [[11]], 'a group commit after the read is read on its own wake-up')
})

t.test('appends and reads run as statements prepared once per connection, not parsed and planned each time', async (t) => {
  const log = await openLog('prepared', 10_000, 1)
  const owned = (await log.claim(42))!
  await owned.append([bytes('p1')])
  await owned.append([bytes('p2'), bytes('p3')])
  t.same((await log.read(42, 0, 10)).map((record) => Buffer.from(record.record).toString()), ['p1', 'p2', 'p3'])
  // One connection in the pool: the statements it prepared are the ones the log ran.
  const prepared = await log.pool.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')
  t.same(prepared.rows.map((row) => row.name), ['trueup_log_append', 'trueup_log_read'])
})

t.test('bytes round-trip exactly: every byte value, an empty record, a large random one', async (t) => {
  const log = await openLog('bytes')
  const owned = (await log.claim(50))!
  const everyByte = Uint8Array.from({ length: 256 }, (_, i) => i)
  const random = crypto.randomBytes(1 << 20)
  const sliced = random.subarray(1000, 1100)
  await owned.append([everyByte, new Uint8Array(0), random, sliced])
  const read = await log.read(50, 0, 10)
  t.equal(read.length, 4)
  t.ok(Buffer.from(everyByte).equals(read[0].record))
  t.equal(read[1].record.length, 0)
  t.ok(random.equals(read[2].record))
  t.ok(sliced.equals(read[3].record), 'a view into a larger buffer is stored as the view, not the buffer')
})

/** The shard's rows as stored: one per group commit (seq its last record's, count its records). */
const rowsOf = async (log: PgLog, shard: number) =>
  (await log.pool.query<{ seq: string; count: number; epoch: string }>('SELECT seq, count, epoch FROM log WHERE shard = $1 ORDER BY seq', [shard]))
    .rows.map((row) => [Number(row.seq), row.count, Number(row.epoch)])
const textsOf = (records: readonly LogRecord[]) => records.map((record) => [record.seq, Buffer.from(record.record).toString()])

t.test('a group commit of several records is one row: seq its last record\'s, count its records; one record alone is stored as itself', async (t) => {
  const log = await openLog('group-row')
  const owned = (await log.claim(60))!
  await owned.append([bytes('a1'), bytes('a2'), bytes('a3')])
  await owned.append([bytes('b1')])
  await owned.append([bytes('c1'), bytes('c2')])
  t.same(await rowsOf(log, 60), [[3, 3, 1], [4, 1, 1], [6, 2, 1]], 'three rows for three group commits')
  const single = await log.pool.query<{ record: Buffer }>('SELECT record FROM log WHERE shard = 60 AND seq = 4')
  t.equal(single.rows[0].record.toString(), 'b1', 'a group of one is the record itself, as rows written before groups are')
  t.same(textsOf(await log.read(60, 0, 100)), [[1, 'a1'], [2, 'a2'], [3, 'a3'], [4, 'b1'], [5, 'c1'], [6, 'c2']])
})

t.test('rows written one per record (as before groups) and group rows read back as one log in seq order', async (t) => {
  const log = await openLog('group-mixed')
  // The statement shape of the earlier code: one row per record, no count column named.
  await log.pool.query(`INSERT INTO log (shard, seq, epoch, record) VALUES (61, 1, 1, 'old1'), (61, 2, 1, 'old2'), (61, 3, 1, 'old3')`)
  await log.pool.query(`INSERT INTO placement (shard, owner, epoch, lease_until) VALUES (61, 'gone', 1, clock_timestamp() - interval '1 second')`)
  const owned = (await log.acquire(61))!
  t.equal(owned.nextSeq, 4, 'the next seq follows the old rows')
  await owned.append([bytes('new4'), bytes('new5'), bytes('new6')])
  await owned.append([bytes('new7')])
  t.same(await rowsOf(log, 61), [[1, 1, 1], [2, 1, 1], [3, 1, 1], [6, 3, 2], [7, 1, 2]])
  t.same(textsOf(await log.read(61, 0, 100)), [[1, 'old1'], [2, 'old2'], [3, 'old3'], [4, 'new4'], [5, 'new5'], [6, 'new6'], [7, 'new7']])
  t.same(textsOf(await log.read(61, 2, 3)), [[3, 'old3'], [4, 'new4'], [5, 'new5']], 'a page across both kinds of row')
  const back = await log.readBack(61, 3, 3)
  t.same(back.records.map((record) => [record.seq, record.epoch, record.record.toString()]), [[3, 1, 'old3'], [4, 2, 'new4'], [5, 2, 'new5']], 'read back by seqs, whatever the rows')
})

t.test('a reader positioned inside a group gets only the records after its seq; pages are bounded in records', async (t) => {
  const log = await openLog('group-mid')
  const owned = (await log.claim(62))!
  await owned.append(['r1', 'r2', 'r3', 'r4', 'r5'].map(bytes))
  await owned.append(['r6', 'r7', 'r8'].map(bytes))
  t.same(textsOf(await log.read(62, 2, 100)), [[3, 'r3'], [4, 'r4'], [5, 'r5'], [6, 'r6'], [7, 'r7'], [8, 'r8']], 'from inside the first group')
  t.same(textsOf(await log.read(62, 0, 2)), [[1, 'r1'], [2, 'r2']], 'a page of 2 records out of a group of 5')
  t.same(textsOf(await log.read(62, 2, 2)), [[3, 'r3'], [4, 'r4']], 'a page starting and ending inside one group')
  t.same(textsOf(await log.read(62, 4, 3)), [[5, 'r5'], [6, 'r6'], [7, 'r7']], 'a page across two groups, cut inside the second')
  t.same(textsOf(await log.read(62, 7, 100)), [[8, 'r8']])
  t.same(await log.read(62, 8, 100), [])
  t.same((await log.readBack(62, 4, 3)).records.map((record) => record.seq), [4, 5, 6], 'read back from inside a group')

  // A tail starting inside a group, with pages of 2 records: every record once, in order.
  const pages: number[][] = []
  const tail = await PgTail.start({
    log, shard: 62, appliedSeq: 3, pollMs: 600_000, gatherMs: 0, pageRecordsMax: 2,
    onRecords: (records) => { pages.push(records.map((record) => record.seq)) }, onError: (error) => t.fail(error.message),
  })
  t.teardown(() => tail.close())
  for (let waited = 0; waited < 50 && tail.appliedSeq < 8; waited++) await sleep(100)
  t.same(pages, [[4, 5], [6, 7], [8]])
})

t.test('a log table created before groups (no count column) is given one when a node opens the log; its rows read as groups of one', async (t) => {
  const first = await openLog('group-old-table')
  await first.pool.query('CREATE DATABASE before_groups')
  const url = first.url.replace(/\/postgres$/, '/before_groups')
  const setup = await PgLog.open({ url, node: 'setup', leaseMs: 10_000, poolSize: 1 }).catch(() => null)
  t.ok(setup, 'opened on an empty database')
  await setup!.pool.query('DROP TABLE log')
  await setup!.pool.query('CREATE TABLE log (shard integer NOT NULL, seq bigint NOT NULL, epoch bigint NOT NULL, record bytea NOT NULL, PRIMARY KEY (shard, seq))')
  await setup!.pool.query(`INSERT INTO log (shard, seq, epoch, record) VALUES (1, 1, 1, 'x1'), (1, 2, 1, 'x2')`)
  await setup!.close()
  const log = await PgLog.open({ url, node: 'after', leaseMs: 10_000, poolSize: 1 })
  t.teardown(() => log.close())
  const owned = (await log.claim(1))!
  await owned.append([bytes('y3'), bytes('y4')])
  t.same(await rowsOf(log, 1), [[1, 1, 1], [2, 1, 1], [4, 2, 1]])
  t.same(textsOf(await log.read(1, 0, 10)), [[1, 'x1'], [2, 'x2'], [3, 'y3'], [4, 'y4']])
})

/** The format codes (0 text, 1 binary) and lengths of the parameters of a Bind message as it goes on the wire. */
function bindParameters(message: Buffer): { format: number; bytes: number }[] {
  let offset = 5
  for (let cString = 0; cString < 2; cString++) offset = message.indexOf(0, offset) + 1
  const formats: number[] = []
  const formatCount = message.readInt16BE(offset)
  for (let index = 0; index < formatCount; index++) formats.push(message.readInt16BE(offset + 2 + 2 * index))
  offset += 2 + 2 * formatCount
  const parameters: { format: number; bytes: number }[] = []
  const valueCount = message.readInt16BE(offset)
  offset += 2
  for (let index = 0; index < valueCount; index++) {
    const bytes = message.readInt32BE(offset)
    parameters.push({ format: formats[index], bytes })
    offset += 4 + Math.max(0, bytes)
  }
  return parameters
}

t.test('a group commit goes to PostgreSQL as one binary parameter holding its records framed, not as text', async (t) => {
  const log = await openLog('group-binary', 10_000, 1)
  const owned = (await log.claim(63))!
  const binds: Buffer[] = []
  const connection = pg.Connection.prototype as unknown as { _send(buffer: Buffer): void }
  const send = connection._send
  connection._send = function (this: unknown, buffer: Buffer) {
    if (buffer[0] === 0x42) binds.push(Buffer.from(buffer))
    return send.call(this, buffer)
  }
  try {
    await owned.append([Buffer.alloc(1000, 1), Buffer.alloc(2000, 2), Buffer.alloc(3000, 3)])
  } finally {
    connection._send = send
  }
  t.equal(binds.length, 1, 'one statement')
  const parameters = bindParameters(binds[0])
  t.equal(parameters.length, 6)
  t.same(parameters[5], { format: 1, bytes: 3 * 4 + 6000 }, 'the records: one binary parameter, 4 bytes of length before each')
  t.same((await log.read(63, 0, 10)).map((record) => [record.seq, record.record.length, record.record[0]]), [[1, 1000, 1], [2, 2000, 2], [3, 3000, 3]])
})
