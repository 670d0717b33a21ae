/** @module Identifiers of ledger objects: a prefix, the workspace tag and a per-workspace sequence number. */

/**
 * Ids are opaque to clients but made deterministically from state, so replaying the log yields the
 * same ids. The workspace tag (random, chosen when the workspace is created) keeps ids unique across
 * workspaces, so an id of one workspace never names an object of another. The sequence number is
 * zero-padded base 36, so within a workspace the string order of ids is their creation order.
 */
export type IdPrefix = 'acc_' | 'ent_' | 'rec_' | 'mat_' | 'wh_' | 'rule_' | 'apr_'

const sequenceDigits = 9

export function makeId(prefix: IdPrefix, tag: string, seq: number): string {
  // join builds one flat string; `+` would keep a rope of three (~24 B and two objects more per id,
  // and every entry holds its id: a million of them after a replay).
  return [prefix, tag, seq.toString(36).padStart(sequenceDigits, '0')].join('')
}

/** The sequence number an id names in this workspace, or 0 when it is not one of ours. */
export function parseId(prefix: IdPrefix, tag: string, id: string): number {
  if (id.length !== prefix.length + tag.length + sequenceDigits) return 0
  if (!id.startsWith(prefix) || id.slice(prefix.length, prefix.length + tag.length) !== tag) return 0
  const digits = id.slice(prefix.length + tag.length)
  if (!/^[0-9a-z]+$/.test(digits)) return 0
  const seq = parseInt(digits, 36)
  return Number.isSafeInteger(seq) ? seq : 0
}
