/** @module The one entry point for a statement file: pick the format, run its reader. */
import { reject } from '../errors.ts'
import { readBai2 } from './bai2.ts'
import { readCamt053 } from './camt053.ts'
import { detectFormat } from './detect.ts'
import { readMt940 } from './mt940.ts'
import type { ReadResult, StatementFormat } from './types.ts'

const readers: Readonly<Record<StatementFormat, (bytes: Uint8Array) => ReadResult>> = {
  camt053: readCamt053,
  mt940: readMt940,
  bai2: readBai2,
}

/** Never throws on bad input: a file no reader recognises is statement_invalid too. */
export function readStatements(bytes: Uint8Array, contentType?: string | null, formatOverride?: StatementFormat | null): ReadResult {
  const format = detectFormat(bytes, contentType, formatOverride)
  if (format === null) {
    return reject('statement_invalid', 'The file is none of camt.053, MT940 or BAI2: send Content-Type or ?format=.', [{ path: 'line 1', message: 'format not recognised' }])
  }
  return readers[format](bytes)
}
