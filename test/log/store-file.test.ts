/**
 * Tests for the look at LMDB's data file before it is mapped (src/log/store-file.ts), on files written here byte
 * by byte: the newer of two meta pages, either page-header width, nonsense sizes refused, and checkStoreFile's
 * verdicts (missing or empty: fine; no meta page, or shorter than the newest commit's pages: damaged, naming why).
 * test/log/corruption.test.ts pins the layout against a real LMDB file; this one checks the module's own logic.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { StoreDamaged } from '../../src/log/damage.ts'
import { checkStoreFile, readNewestMeta } from '../../src/log/store-file.ts'

type Tap = Parameters<Parameters<typeof t.test>[0]>[0]

const magic = 0xbeefc0de

interface Meta { pageSize: number, lastPage: number, txnId: number, header?: 16 | 24, magicValue?: number }

/** One meta page as LMDB writes it: a page header, then MDB_meta (magic, ..., page size at +24, last page at +120, txn id at +128). */
function metaPage({ pageSize, lastPage, txnId, header = 24, magicValue = magic }: Meta, pageBytes = pageSize): Buffer {
  const page = Buffer.alloc(pageBytes)
  page.writeUInt32LE(magicValue, header)
  page.writeUInt32LE(pageSize, header + 24)
  page.writeBigUInt64LE(BigInt(lastPage), header + 120)
  page.writeBigUInt64LE(BigInt(txnId), header + 128)
  return page
}

/** A log dir whose data.mdb is the given bytes, padded with zeros to totalBytes. */
function logWith(t: Tap, bytes: Buffer, totalBytes = bytes.length): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-store-file-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const logPath = path.join(dir, 'log')
  fs.mkdirSync(logPath)
  fs.writeFileSync(path.join(logPath, 'data.mdb'), Buffer.concat([bytes, Buffer.alloc(Math.max(0, totalBytes - bytes.length))]))
  return logPath
}

const dataFile = (logPath: string) => path.join(logPath, 'data.mdb')

t.test('readNewestMeta: the meta page with the higher txn id, whichever of the two it is', async (t) => {
  const older = { pageSize: 4096, lastPage: 5, txnId: 7 }
  const newer = { pageSize: 4096, lastPage: 9, txnId: 8 }
  t.same(readNewestMeta(dataFile(logWith(t, Buffer.concat([metaPage(older), metaPage(newer)])))), newer)
  t.same(readNewestMeta(dataFile(logWith(t, Buffer.concat([metaPage(newer), metaPage(older)])))), newer)
})

t.test('readNewestMeta: a 16-byte page header (LMDB 0.9) as well as 24', async (t) => {
  const meta = { pageSize: 8192, lastPage: 3, txnId: 2 }
  t.same(readNewestMeta(dataFile(logWith(t, metaPage({ ...meta, header: 16 }), 8192 * 2))), meta)
})

t.test('readNewestMeta: the first page alone when the second is missing, damaged or of another page size', async (t) => {
  const first = { pageSize: 4096, lastPage: 1, txnId: 1 }
  t.same(readNewestMeta(dataFile(logWith(t, metaPage(first)))), first, 'a file of one page')
  t.same(readNewestMeta(dataFile(logWith(t, Buffer.concat([metaPage(first), metaPage({ pageSize: 4096, lastPage: 2, txnId: 9, magicValue: 1 })])))), first, 'no magic on the second')
  t.same(readNewestMeta(dataFile(logWith(t, Buffer.concat([metaPage(first), metaPage({ pageSize: 8192, lastPage: 2, txnId: 9 }, 4096)])))), first, 'another page size on the second')
})

t.test('readNewestMeta: none without magic, or with a page size not a power of two within 512..65536', async (t) => {
  t.equal(readNewestMeta(dataFile(logWith(t, Buffer.alloc(8192)))), null, 'zeros')
  t.equal(readNewestMeta(dataFile(logWith(t, Buffer.from('not lmdb')))), null, 'shorter than a meta page')
  for (const pageSize of [256, 3000, 131072]) {
    t.equal(readNewestMeta(dataFile(logWith(t, metaPage({ pageSize, lastPage: 1, txnId: 1 }, 4096), 8192))), null, `page size ${pageSize}`)
  }
  t.same(readNewestMeta(dataFile(logWith(t, metaPage({ pageSize: 512, lastPage: 0, txnId: 1 }), 1024))), { pageSize: 512, lastPage: 0, txnId: 1 }, '512 is the smallest')
  t.same(readNewestMeta(dataFile(logWith(t, metaPage({ pageSize: 65536, lastPage: 1, txnId: 1 }), 131072))), { pageSize: 65536, lastPage: 1, txnId: 1 }, '65536 the largest')
  const huge = metaPage({ pageSize: 4096, lastPage: 1, txnId: 1 })
  huge.writeBigUInt64LE(2n ** 60n, 24 + 120)
  t.equal(readNewestMeta(dataFile(logWith(t, huge, 8192))), null, 'a last page past safe integers')
})

t.test('checkStoreFile: no log dir, no file, an empty file, and a file as long as its commit uses all pass', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-store-file-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  checkStoreFile(path.join(dir, 'no-log'))
  fs.writeFileSync(path.join(dir, 'file'), '')
  checkStoreFile(path.join(dir, 'file'))
  checkStoreFile(logWith(t, Buffer.alloc(0)))
  const meta = { pageSize: 4096, lastPage: 3, txnId: 5 }
  checkStoreFile(logWith(t, Buffer.concat([metaPage(meta), metaPage({ ...meta, txnId: 4 })]), 4 * 4096))
  t.pass('none refused')
})

t.test('checkStoreFile: a file one byte short of its newest commit\'s pages is damaged, and says so', async (t) => {
  const meta = { pageSize: 4096, lastPage: 3, txnId: 5 }
  const logPath = logWith(t, Buffer.concat([metaPage(meta), metaPage({ ...meta, lastPage: 1, txnId: 4 })]), 4 * 4096 - 1)
  t.throws(() => checkStoreFile(logPath), new StoreDamaged('store_file', ''), 'a StoreDamaged')
  try {
    checkStoreFile(logPath)
  } catch (error) {
    t.equal((error as StoreDamaged).kind, 'store_file')
    t.match((error as Error).message, `it is ${4 * 4096 - 1} bytes long, but its newest commit (txn 5) uses 4 pages of 4096 bytes (16384 bytes): the file was cut short`)
  }
})

t.test('checkStoreFile: a file with no valid meta page is damaged, its length named', async (t) => {
  const logPath = logWith(t, Buffer.alloc(10_000, 7))
  t.throws(() => checkStoreFile(logPath), { name: 'StoreDamaged', message: /it is 10000 bytes long and holds no valid LMDB meta page/ })
})

t.test('checkStoreFile: a data.mdb that cannot be looked at (a link loop) is damaged, naming the failure', async (t) => {
  const logPath = logWith(t, Buffer.alloc(0))
  fs.rmSync(dataFile(logPath))
  fs.symlinkSync('data.mdb', dataFile(logPath))
  t.throws(() => checkStoreFile(logPath), { name: 'StoreDamaged', message: /cannot stat it \(ELOOP/ })
})
