/** @module The one entry point for a statement file: pick the format, run its descriptor's reader (formats.ts). */
import { reject } from '../errors.ts'
import { detectFormat } from './detect.ts'
import { formatNamed, formatTitles, type StatementFormat } from './formats.ts'
import type { ReadResult } from './types.ts'

/** Never throws on bad input: a file no reader recognises is statement_invalid too. */
export function readStatements(bytes: Uint8Array, contentType?: string | null, formatOverride?: StatementFormat | null): ReadResult {
  const format = detectFormat(bytes, contentType, formatOverride)
  if (format === null) {
    return reject('statement_invalid', `The file is none of ${formatTitles('or')}: send Content-Type or ?format=.`, [{ path: 'line 1', message: 'format not recognised' }])
  }
  return formatNamed(format).read(bytes)
}
