/**
 * Checksums (src/log/codec.ts, crc32c.ts, store-file.ts, snapshot.ts): a damaged log record refuses the start with
 * its seq and the recovery steps; a damaged snapshot is ignored with a warning and its state rebuilt from the log;
 * an LMDB file cut short fails with a message instead of SIGBUS; the doctor's truncation recovers a damaged log.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { open } from 'lmdb'
import t from 'tap'
import { crc32c } from '../../src/log/crc32c.ts'
import { decodeRecord, encodeRecord, frame, seqKeyBytes, unframe } from '../../src/log/codec.ts'
import { StoreDamaged } from '../../src/log/damage.ts'
import { readNewestMeta } from '../../src/log/store-file.ts'
import { createAccount, postEntryOk, raiseLimits } from '../support/api.ts'
import { killHard, repositoryRoot, startProcess, type RunningProcess } from '../support/process.ts'
import { call, startTestService, type TestService } from '../support/service.ts'

const run = promisify(execFile)
const roots: string[] = []
const processes: RunningProcess[] = []
t.teardown(async () => {
  for (const running of processes) await killHard(running)
  for (const dir of roots) fs.rmSync(dir, { recursive: true, force: true })
})

function freshDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-corrupt-'))
  roots.push(dir)
  return dir
}

/** A small ledger: two accounts and `count` entries with descriptions `marker-<i>`; stopped cleanly (snapshots written). */
async function populate(dataDir: string, count: number): Promise<{ apiKey: string; view: unknown }> {
  const service = await startTestService({ dataDir })
  await raiseLimits(service, 'default')
  await createAccount(service.baseUrl, service.apiKey, 'assets:bank')
  await createAccount(service.baseUrl, service.apiKey, 'income:sales')
  for (let i = 0; i < count; i++) {
    await postEntryOk(service.baseUrl, service.apiKey, [{ account: 'assets:bank', amount: 100 + i }, { account: 'income:sales', amount: -100 - i }], { description: `marker-${String(i).padStart(4, '0')}` })
  }
  const view = await readView(service)
  await service.stop()
  return { apiKey: service.apiKey, view }
}

async function readView(service: TestService): Promise<unknown> {
  const entries = await call(service.baseUrl, 'GET', '/v2/entries?limit=1000', { key: service.apiKey })
  const balance = await call(service.baseUrl, 'GET', '/v2/accounts/assets:bank/balance', { key: service.apiKey })
  return { entries: entries.body, balance: balance.body.balance }
}

/** Opens the stopped data dir's LMDB env and hands its two databases to change. */
async function withStore(dataDir: string, change: (log: any, snapshots: any) => void): Promise<void> {
  const root = open({ path: path.join(dataDir, 'log'), maxDbs: 8 })
  try {
    // The format 2 records database (src/log/record-store.ts); a log begun by this code has nothing in format 1's.
    const log = root.openDB<Buffer, number>({ name: 'records', encoding: 'binary' })
    const snapshots = root.openDB<Buffer, string>({ name: 'snapshots', encoding: 'binary' })
    change(log, snapshots)
    await root.flushed
  } finally {
    await root.close()
  }
}

/**
 * Removes every snapshot, so that the next start replays the whole log: start-up reads only the records
 * recovery needs (those above the snapshots), so damage below them is the doctor's to find, not start-up's.
 */
function removeSnapshots(snapshots: any): void {
  for (const key of [...snapshots.getKeys({})]) snapshots.removeSync(key)
}

/** The seq of the record whose entry has this description. */
async function seqOf(dataDir: string, description: string): Promise<number> {
  let found = 0
  await withStore(dataDir, (log) => {
    for (const { key, value } of log.getRange({})) {
      const read = decodeRecord(key, value)
      if (read.ok && (read.record.command as { description?: string }).description === description) found = key
    }
  })
  if (found === 0) throw new Error(`no record with description ${description}`)
  return found
}

async function startFails(t: Tap, dataDir: string): Promise<StoreDamaged> {
  try {
    const service = await startTestService({ dataDir, warn: () => {} })
    await service.stop()
  } catch (error) {
    t.ok(error instanceof StoreDamaged, `the start throws StoreDamaged (${(error as Error).message.split('\n')[0]})`)
    return error as StoreDamaged
  }
  throw new Error('the service started on a damaged log')
}

type Tap = { ok(value: unknown, message: string): unknown; equal(found: unknown, wanted: unknown, message: string): unknown; match(found: unknown, pattern: RegExp, message: string): unknown; same(found: unknown, wanted: unknown, message: string): unknown }

t.test('CRC32C and the frame', async (t) => {
  t.equal(crc32c(Buffer.from('123456789')), 0xe3069283, 'the CRC32C check value')
  t.equal(crc32c(Buffer.alloc(32)), 0x8a9136aa, 'RFC 3720 B.4: 32 bytes of zeros')
  t.equal(crc32c(Buffer.alloc(32, 0xff)), 0x62a8ab43, 'RFC 3720 B.4: 32 bytes of ones')
  const record = { v: 1 as const, workspace: 'default', command: { type: 'account.create', at_ms: 1_700_000_000_000, key_id: 'key_1', visibility: null, name: 'assets:bank', tags: [] } } as any
  const bytes = encodeRecord(7, record)
  t.same(decodeRecord(7, bytes), { ok: true, record }, 'a record decodes back')
  t.equal(decodeRecord(8, bytes).ok, false, 'the same bytes under another seq fail: the key is inside the checksum')
  let undetected = 0
  for (let index = 0; index < bytes.length; index++) {
    for (const mask of [0x01, 0x80, 0xff]) {
      const damaged = Buffer.from(bytes)
      damaged[index] ^= mask
      if (decodeRecord(7, damaged).ok) undetected++
    }
  }
  t.equal(undetected, 0, `every one of ${bytes.length * 3} single-byte flips is detected`)
  for (let length = 0; length < bytes.length; length++) if (decodeRecord(7, bytes.subarray(0, length)).ok) undetected++
  t.equal(undetected, 0, 'every truncation is detected')
  const legacy = Buffer.from([0x83, 0xa1, 0x76, 0x01, 0xa9, 0x77, 0x6f, 0x72, 0x6b, 0x73, 0x70, 0x61, 0x63, 0x65])
  t.match((unframe(seqKeyBytes(1), legacy) as { reason: string }).reason, /no frame marker/, 'an unframed value is told apart')
  t.equal(unframe(Buffer.from('k'), frame(Buffer.from('k'), Buffer.from('payload'))).ok, true, 'frame and unframe agree')
})

t.test('a log record with a flipped byte refuses the start, naming its seq and the recovery', async (t) => {
  const dataDir = freshDir()
  await populate(dataDir, 10)
  const seq = await seqOf(dataDir, 'marker-0004')
  await withStore(dataDir, (log, snapshots) => {
    const value = Buffer.from(log.get(seq))
    value[value.length - 3] ^= 0x20
    log.putSync(seq, value)
    removeSnapshots(snapshots)
  })
  const error = await startFails(t, dataDir)
  t.equal(error.kind, 'log_record')
  t.equal(error.seq, seq, `the error names record ${seq}`)
  t.match(error.message, new RegExp(`^log record ${seq} in .* is damaged: checksum mismatch`), 'the message says which record and why')
  t.match(error.message, new RegExp(`truncate --data-dir ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} --from ${seq} --yes`), 'and how to recover')
  t.match(error.message, /docs\/RELIABILITY\.md/, 'and where the procedure is written')
})

t.test('a record cut short, a missing record, and a snapshot past the log end refuse the start', async (t) => {
  const dataDir = freshDir()
  await populate(dataDir, 6)
  const cut = await seqOf(dataDir, 'marker-0002')
  await withStore(dataDir, (log, snapshots) => {
    log.putSync(cut, Buffer.from(log.get(cut)).subarray(0, 20))
    removeSnapshots(snapshots)
  })
  const truncated = await startFails(t, dataDir)
  t.equal(truncated.seq, cut, 'a record cut short is named')
  t.match(truncated.message, /checksum mismatch/)

  const other = freshDir()
  await populate(other, 6)
  const gone = await seqOf(other, 'marker-0003')
  await withStore(other, (log, snapshots) => {
    log.removeSync(gone)
    removeSnapshots(snapshots)
  })
  const missing = await startFails(t, other)
  t.equal(missing.kind, 'log_gap')
  t.equal(missing.seq, gone, `the missing record ${gone} is named`)

  // The tail of the log gone while the snapshots (written at the clean stop) still cover it.
  const third = freshDir()
  await populate(third, 6)
  let last = 0
  await withStore(third, (log) => {
    for (const key of log.getKeys({ reverse: true, limit: 1 })) last = key
    log.removeSync(last)
  })
  const ahead = await startFails(t, third)
  t.equal(ahead.kind, 'snapshot_ahead', 'a log that lost its tail is not taken for a complete one')
  t.match(ahead.message, new RegExp(`ends at record ${last - 1}`))
})

t.test('bytes flipped in the LMDB file itself: the damaged record is found at start-up', async (t) => {
  const dataDir = freshDir()
  await populate(dataDir, 8)
  const seq = await seqOf(dataDir, 'marker-0005')
  const file = path.join(dataDir, 'log', 'data.mdb')
  const bytes = fs.readFileSync(file)
  const marker = Buffer.from('marker-0005')
  let flipped = 0
  for (let at = bytes.indexOf(marker); at !== -1 && flipped < 100; at = bytes.indexOf(marker, at + 1)) {
    bytes[at + marker.length - 1] ^= 0x01
    flipped++
  }
  t.ok(flipped >= 1, `the marker was found ${flipped} time(s) in data.mdb (log record, snapshot, old page copies)`)
  fs.writeFileSync(file, bytes)
  const warnings: string[] = []
  try {
    await startTestService({ dataDir, warn: (line) => warnings.push(line) })
    t.fail('the service started on a damaged file')
  } catch (error) {
    t.ok(error instanceof StoreDamaged)
    t.equal((error as StoreDamaged).seq, seq, `record ${seq}, which holds the flipped byte, is named`)
  }
})

t.test('a damaged snapshot is ignored with a warning; the log rebuilds the same state', async (t) => {
  const dataDir = freshDir()
  const { apiKey, view } = await populate(dataDir, 12)
  await withStore(dataDir, (_log, snapshots) => {
    const value = Buffer.from(snapshots.get('default'))
    value[Math.floor(value.length / 2)] ^= 0x04
    snapshots.putSync('default', value)
    const system = Buffer.from(snapshots.get(' system'))
    snapshots.putSync(' system', system.subarray(0, system.length - 1))
  })
  const warnings: string[] = []
  const service = await startTestService({ dataDir, apiKey, warn: (line) => warnings.push(line) })
  t.equal(service.service.replay.snapshots, 0, 'the damaged workspace snapshot is not used')
  t.same(service.service.replay.unusableSnapshots.map((snapshot) => snapshot.name).sort(), ['system', 'workspace default'], 'both are reported unusable')
  t.ok(service.service.replay.records >= 14, `the whole log is replayed (${service.service.replay.records} records)`)
  t.ok(warnings.some((line) => /snapshot of workspace default is damaged \(checksum mismatch/.test(line)), 'the warning names the workspace and the reason')
  t.ok(warnings.some((line) => /snapshot of system is damaged/.test(line)), 'and the system snapshot')
  t.same(await readView(service), view, 'entries and balances are as before')
  await service.stop()

  const again: string[] = []
  const next = await startTestService({ dataDir, apiKey, warn: (line) => again.push(line) })
  t.same(again, [], 'the clean stop wrote fresh snapshots: no warning on the next start')
  t.equal(next.service.replay.snapshots, 1, 'and the workspace starts from its new snapshot')
  t.same(await readView(next), view)
  await next.stop()
})

t.test('the meta page layout is what store-file.ts reads', async (t) => {
  const dataDir = freshDir()
  await populate(dataDir, 30)
  const file = path.join(dataDir, 'log', 'data.mdb')
  const meta = readNewestMeta(file)
  t.ok(meta !== null, 'a meta page is found')
  t.ok(meta!.pageSize >= 4096, `page size ${meta!.pageSize}`)
  t.ok(meta!.txnId >= 2, `txn id ${meta!.txnId}`)
  const sizeBytes = fs.statSync(file).size
  t.ok((meta!.lastPage + 1) * meta!.pageSize <= sizeBytes, `the newest commit's ${meta!.lastPage + 1} pages fit the ${sizeBytes}-byte file`)
  t.ok((meta!.lastPage + 1) * meta!.pageSize > sizeBytes / 2, 'and they are most of it: lastPage is read from the right place')
})

t.test('an LMDB file cut short: the process refuses to start with exit 2 and says so (no SIGBUS)', async (t) => {
  const dataDir = freshDir()
  await populate(dataDir, 40)
  const file = path.join(dataDir, 'log', 'data.mdb')
  const sizeBytes = fs.statSync(file).size
  fs.truncateSync(file, Math.floor(sizeBytes / 2))
  let error: Error | null = null
  try {
    processes.push(await startProcess({ dataDir, adminToken: 'x', startTimeoutMs: 20_000 }))
  } catch (caught) {
    error = caught as Error
  }
  t.ok(error !== null, 'the process did not start')
  t.match(error?.message ?? '', /code 2, signal null/, 'it exited with code 2, not a signal')
  t.match(error?.message ?? '', /refusing to start: the LMDB file .*data\.mdb is damaged: .*was cut short/, 'stderr says the file was cut short')

  fs.truncateSync(file, 100)
  const tiny = await startFails(t, dataDir)
  t.equal(tiny.kind, 'store_file')
  t.match(tiny.message, /no valid LMDB meta page/, 'a file shorter than its meta pages')

  const notADir = freshDir()
  fs.writeFileSync(path.join(notADir, 'log'), 'not a directory')
  const unopenable = await startFails(t, notADir)
  t.equal(unopenable.kind, 'store_unopenable')
  t.match(unopenable.message, /^cannot open the log at .*log: /, 'LMDB refusing to open is named too')
})

t.test('recovery: the doctor finds the damage, exports and cuts the log back, and the service starts', async (t) => {
  const dataDir = freshDir()
  const { apiKey } = await populate(dataDir, 10)
  const seq = await seqOf(dataDir, 'marker-0007')
  await withStore(dataDir, (log) => {
    const value = Buffer.from(log.get(seq))
    value[8] ^= 0x10
    log.putSync(seq, value)
  })
  const doctor = (...args: string[]) => run(process.execPath, ['--import=tsx', 'scripts/log-doctor.ts', ...args], { cwd: repositoryRoot }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  )
  const verify = await doctor('verify', '--data-dir', dataDir)
  t.equal(verify.code, 2, 'verify exits 2 on damage')
  t.match(verify.stdout, new RegExp(`record ${seq}: DAMAGED: checksum mismatch`), 'and lists the damaged record')
  const dry = await doctor('truncate', '--data-dir', dataDir, '--from', String(seq))
  t.equal(dry.code, 1, 'without --yes nothing is done')
  const cut = await doctor('truncate', '--data-dir', dataDir, '--from', String(seq), '--yes')
  t.equal(cut.code, 0, `truncate succeeds: ${cut.stdout.trim().split('\n').at(-1)}`)
  const exported = fs.readdirSync(dataDir).filter((name) => name.startsWith(`log-removed-from-${seq}-`))
  t.equal(exported.length, 1, 'the removed records were exported')
  const lines = fs.readFileSync(path.join(dataDir, exported[0]), 'utf8').trim().split('\n').map((line) => JSON.parse(line))
  t.equal(lines[0].seq, seq)
  t.match(lines[0].damaged, /checksum mismatch/, 'the damaged record is exported as base64 with its reason')
  t.ok(lines.slice(1).every((line: { record?: unknown }) => line.record !== undefined), 'the intact later ones decoded')

  const service = await startTestService({ dataDir, apiKey })
  const entries = (await call(service.baseUrl, 'GET', '/v2/entries?limit=1000', { key: apiKey })).body.data
  t.same(entries.map((entry: { description: string }) => entry.description), ['marker-0000', 'marker-0001', 'marker-0002', 'marker-0003', 'marker-0004', 'marker-0005', 'marker-0006'], 'the records before the damage are there')
  const bank = (await call(service.baseUrl, 'GET', '/v2/accounts/assets:bank/balance', { key: apiKey })).body.balance
  t.equal(bank, [0, 1, 2, 3, 4, 5, 6].reduce((sum, i) => sum + 100 + i, 0), 'and the balance is theirs')
  await service.stop()
})
