/**
 * @module The hash a closed window's seal is made with: SHA-256 (node:crypto) over canonical JSON chunks,
 * lowercase hex. Handed to the ledger state by whoever makes it (the actor, a snapshot restore), because
 * src/ledger imports nothing but itself (test/ledger/purity.test.ts); hashing is deterministic, not I/O.
 */

import { createHash } from 'node:crypto'
import type { SealHasher } from '../ledger/state.js'

/** Chunks are gathered up to this many characters before each update: a call per line item is slow. */
const batchCharsMax = 64 * 1024

export const sha256Hex: SealHasher = (chunks) => {
  const hash = createHash('sha256')
  let batch = ''
  for (const chunk of chunks) {
    batch += chunk
    if (batch.length >= batchCharsMax) {
      hash.update(batch, 'utf8')
      batch = ''
    }
  }
  hash.update(batch, 'utf8')
  return hash.digest('hex')
}
