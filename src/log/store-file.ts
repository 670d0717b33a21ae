/** @module A look at the LMDB data file before LMDB maps it: a file cut short must fail with a message, not SIGBUS. */

import fs from 'node:fs'
import path from 'node:path'
import { storeFileDamaged } from './damage.js'
import { reasonOf, StartRefused } from '../start-refused.js'

// LMDB trusts its file: pages past the end of a truncated file are mapped but absent, and reading
// them kills the process with SIGBUS (or SIGSEGV for a file shorter than one page), with no word
// of why. So before open() we read the two meta pages ourselves and check that the file is as
// long as the newest commit says. The layout is that of the LMDB inside lmdb-js 3.x (64-bit):
// a page header, then MDB_meta. test/log/corruption.test.ts pins it against a real file, so an
// lmdb upgrade that moves a field fails there rather than here.

const lmdbMagic = 0xbeefc0de
/** Where the page header may end (the magic starts there): 16 bytes in LMDB 0.9, 24 in lmdb-js 3. */
const headerBytesCandidates = [24, 16] as const
// Offsets inside MDB_meta, from the magic: version u32, address u64, mapsize u64, two MDB_db of
// 48 bytes (the first one's md_pad is the page size), then mm_last_pg u64 and mm_txnid u64.
const pageSizeOffset = 24
const lastPageOffset = 120
const txnIdOffset = 128
const metaBytes = 136
const pageSizeMin = 512
const pageSizeMax = 65536

export interface MetaPage {
  readonly pageSize: number
  readonly lastPage: number
  readonly txnId: number
}

/** The meta page starting at pageOffset, or null when there is none (no magic, nonsense sizes). */
function readMeta(file: number, pageOffset: number): MetaPage | null {
  const bytes = Buffer.alloc(headerBytesCandidates[0] + metaBytes)
  const read = fs.readSync(file, bytes, 0, bytes.length, pageOffset)
  for (const header of headerBytesCandidates) {
    if (read < header + metaBytes || bytes.readUInt32LE(header) !== lmdbMagic) continue
    const pageSize = bytes.readUInt32LE(header + pageSizeOffset)
    const lastPage = Number(bytes.readBigUInt64LE(header + lastPageOffset))
    const txnId = Number(bytes.readBigUInt64LE(header + txnIdOffset))
    if (pageSize < pageSizeMin || pageSize > pageSizeMax || (pageSize & (pageSize - 1)) !== 0) return null
    if (!Number.isSafeInteger(lastPage) || !Number.isSafeInteger(txnId)) return null
    return { pageSize, lastPage, txnId }
  }
  return null
}

/** The newer of the two meta pages (LMDB opens at the one with the higher txn id). */
export function readNewestMeta(dataFile: string): MetaPage | null {
  const file = fs.openSync(dataFile, 'r')
  try {
    const first = readMeta(file, 0)
    if (first === null) return null
    const second = readMeta(file, first.pageSize)
    if (second === null || second.pageSize !== first.pageSize) return first
    return second.txnId > first.txnId ? second : first
  } finally {
    fs.closeSync(file)
  }
}

/**
 * Throws StoreDamaged when the LMDB data file of logPath exists but is not safe to open: no valid
 * meta page, or shorter than the pages its newest commit uses. A missing file is fine (a new log).
 */
export function checkStoreFile(logPath: string): void {
  const dataFile = path.join(logPath, 'data.mdb')
  let sizeBytes: number
  try {
    sizeBytes = fs.statSync(dataFile).size
  } catch (error) {
    // No file yet (a new log), or no directory where the log should be: LMDB's open says what is wrong.
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return
    // Not allowed to look is a permission problem, never damage to restore from a backup.
    if (code === 'EACCES' || code === 'EPERM') throw new StartRefused(`DATA_DIR ${path.dirname(logPath)}: ${dataFile} cannot be read: ${reasonOf(error)}`)
    throw storeFileDamaged(dataFile, `cannot stat it (${(error as Error).message})`)
  }
  if (sizeBytes === 0) return
  const meta = readNewestMeta(dataFile)
  if (meta === null) throw storeFileDamaged(dataFile, `it is ${sizeBytes} bytes long and holds no valid LMDB meta page (cut short, overwritten, or not an LMDB file)`)
  const neededBytes = (meta.lastPage + 1) * meta.pageSize
  if (sizeBytes < neededBytes) {
    throw storeFileDamaged(dataFile, `it is ${sizeBytes} bytes long, but its newest commit (txn ${meta.txnId}) uses ${meta.lastPage + 1} pages of ${meta.pageSize} bytes (${neededBytes} bytes): the file was cut short`)
  }
}
