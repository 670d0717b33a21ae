/**
 * Log format 2 (src/log/record-store.ts, codec.ts): 64-bit seqs, and a log written in format 1 by earlier code
 * (test/fixtures/log-format-1) still opens, reads back every record and replays to the same balances; records
 * appended after it go to format 2 and the two read as one log; seqs past 2^32 - 1 are written and read back.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { open } from 'lmdb'
import t from 'tap'
import { Runtime } from '../../src/actor/runtime.ts'
import { decodeRecord, encodeRecord, frame, seqKeyBytes, type LogRecord } from '../../src/log/codec.ts'
import { CommandLog } from '../../src/log/command-log.ts'
import { Packr } from 'msgpackr'

const fixtureDir = path.join(import.meta.dirname, '..', 'fixtures', 'log-format-1')
const expected = JSON.parse(fs.readFileSync(path.join(fixtureDir, 'expected.json'), 'utf8')) as {
  lastSeq: number
  records: { seq: number; record: LogRecord }[]
  balances: Record<string, Record<string, number>>
  entries: Record<string, number>
}

const roots: string[] = []
t.teardown(() => { for (const dir of roots) fs.rmSync(dir, { recursive: true, force: true }) })

/** A copy of the fixture's data dir (opening a log writes to it). */
function fixtureCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-format-'))
  roots.push(dir)
  fs.cpSync(path.join(fixtureDir, 'log'), path.join(dir, 'log'), { recursive: true })
  return dir
}

function openLog(dir: string): CommandLog {
  return new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 64, pendingRecordsMax: 10_000 })
}

function durable(log: CommandLog): Promise<void> {
  return new Promise((resolve, reject) => log.afterDurable(log.lastSeq, (error) => (error === null ? resolve() : reject(error))))
}

function balancesOf(runtime: Runtime): Record<string, Record<string, number>> {
  const balances: Record<string, Record<string, number>> = {}
  for (const [id, actor] of runtime.actors) balances[id] = Object.fromEntries(actor.state.accounts.map((account) => [account.name, account.index.total]))
  return balances
}

t.test('a format 1 log written by earlier code opens, reads back every record and replays to the same state', async (t) => {
  const dir = fixtureCopy()
  const log = openLog(dir)
  t.equal(log.lastSeq, expected.lastSeq, 'its last seq')
  t.equal(log.firstSeq, 1, 'nothing retained away')
  t.same([...log.readFrom(1)], expected.records, 'every record as the earlier code read it')
  const runtime = new Runtime(log, 1_000_000, () => {})
  const replay = runtime.replay(() => 0)
  t.equal(replay.records, expected.lastSeq, 'replayed from record 1')
  t.same(balancesOf(runtime), expected.balances, 'the same balances')
  t.same(Object.fromEntries([...runtime.actors].map(([id, actor]) => [id, actor.state.entries.length])), expected.entries, 'the same entries')
  await log.close()
})

t.test('records appended to a format 1 log go to format 2 and both read as one log, across restarts', async (t) => {
  const dir = fixtureCopy()
  const first = openLog(dir)
  const runtime = new Runtime(first, 1_000_000, () => {})
  runtime.replay(() => 0)
  const actor = runtime.actor('default')
  const rejected: string[] = []
  for (let i = 0; i < 30; i++) {
    const submitted = actor.submit({ type: 'entry.post', at_ms: Date.UTC(2026, 3, 1) + i, key_id: 'key_fixture', visibility: null, lines: [{ account: 'assets:bank', amount: 5 + i }, { account: 'income:sales', amount: -5 - i }], effective_at_ms: Date.UTC(2026, 1, 1 + i % 27), description: null, metadata: null } as never)
    if (!submitted.outcome.ok) rejected.push(submitted.outcome.code)
  }
  t.same(rejected, [], 'every new entry accepted')
  await durable(first)
  const live = balancesOf(runtime)
  t.equal(first.lastSeq, expected.lastSeq + 30)
  await first.close()

  const second = openLog(dir)
  t.equal(second.lastSeq, expected.lastSeq + 30, 'the reopened log ends after the new records')
  const seqs = [...second.readFrom(1)].map(({ seq }) => seq)
  t.same(seqs, Array.from({ length: expected.lastSeq + 30 }, (_, i) => i + 1), 'one run of seqs across the two formats')
  const replayed = new Runtime(second, 1_000_000, () => {})
  replayed.replay(() => 0)
  t.same(balancesOf(replayed), live, 'the replay of both reaches the live state')
  await second.close()
})

t.test('seqs past 2^32 - 1 are written, found under their own key only, and read back', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-format-'))
  roots.push(dir)
  const firstSeq = 2 ** 32 - 2
  // A log whose records below 2^32 - 2 retention has deleted (the retained start is all that is left of them).
  const root = open({ path: path.join(dir, 'log'), maxDbs: 8 })
  await root.openDB<number, string>({ name: 'log-meta' }).put('first', firstSeq)
  await root.close()
  const log = openLog(dir)
  t.equal(log.lastSeq, firstSeq - 1, 'the log continues after the retained start')
  const record = (i: number): LogRecord => ({ v: 1, workspace: 'default', command: { type: 'account.create', at_ms: i, name: `assets:a${i}`, tags: [] } as never })
  const seqs = Array.from({ length: 5 }, (_, i) => log.append(record(i)))
  t.same(seqs, [2 ** 32 - 2, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 32 + 2], 'past the uint32 range')
  await durable(log)
  await log.close()
  const reopened = openLog(dir)
  t.same([...reopened.readFrom(firstSeq)].map(({ seq, record: read }) => [seq, read.command.at_ms]), seqs.map((seq, i) => [seq, i]), 'each read back under its seq')
  await reopened.close()
  const bytes = encodeRecord(2 ** 32 + 1, record(1))
  t.equal(decodeRecord(2 ** 32 + 1, bytes).ok, true)
  t.equal(decodeRecord(1, bytes).ok, false, 'the checksum covers all 8 bytes of the seq: 2^32 + 1 is not 1')
  t.equal(decodeRecord(Number.MAX_SAFE_INTEGER, encodeRecord(Number.MAX_SAFE_INTEGER, record(2))).ok, true, 'up to Number.MAX_SAFE_INTEGER')
})

t.test('format 1 records are checked with the 4-byte seq their checksum covers', async (t) => {
  // How format 1 stored a record (the code of 3c05b49): the frame's checksum over the seq as a uint32.
  const packr = new Packr({ useRecords: false, mapsAsObjects: true, variableMapSize: true })
  const record = expected.records[5].record
  const legacy = frame(seqKeyBytes(6, 4), packr.pack(record))
  t.same(decodeRecord(6, legacy, 4), { ok: true, record }, 'read as format 1')
  t.equal(decodeRecord(6, legacy, 8).ok, false, 'not mistaken for format 2')
})
