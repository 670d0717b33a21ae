/** @module Where a workspace lives: a stable hash of its id (FNV-1a, 32 bits, over its UTF-16 code units), modulo the number of shards. */

const fnvOffsetBasis = 0x811c9dc5
const fnvPrime = 0x01000193

/** The same id gives the same shard on every start and every machine (never Math.random, never a Map's order). */
export function shardOf(workspaceId: string, shards: number): number {
  let hash = fnvOffsetBasis
  for (let index = 0; index < workspaceId.length; index++) {
    hash ^= workspaceId.charCodeAt(index)
    hash = Math.imul(hash, fnvPrime) >>> 0
  }
  return hash % shards
}
