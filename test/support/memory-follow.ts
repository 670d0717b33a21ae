/** @module Test support: a shard's local log in memory (the LocalFollow a ShardReplica writes followed records into), for replica tests without LMDB. */

import type { LocalFollow } from '../../src/cluster/shard-replica.ts'

/** A local log in memory: the records a standby followed, at their seqs. */
export function memoryLog(): LocalFollow & { readonly records: Buffer[] } {
  const records: Buffer[] = []
  return {
    records,
    lastSeq: () => records.length,
    recordAt: (seq) => records[seq - 1] ?? null,
    write: async (firstSeq, written) => {
      if (firstSeq !== records.length + 1) throw new Error(`written at ${firstSeq}, the log ends at ${records.length}`)
      records.push(...written)
    },
    unansweredRecordsMax: 8,
    dropAfter: async (seq) => ({ records: records.splice(seq).length, snapshots: [] }),
  }
}
