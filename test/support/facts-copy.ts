/**
 * A deep copy of a workspace's facts, as encoding a snapshot makes one (the facts share the live state's
 * objects). The entries are made again in a store of their own, as a snapshot's reader makes them:
 * structuredClone would keep their fields but not their class.
 */
import type { WorkspaceFacts } from '../../src/ledger/restore.ts'
import { Entry, EntryStore } from '../../src/ledger/state.ts'

export function copiedFacts(facts: WorkspaceFacts): WorkspaceFacts {
  const store = new EntryStore(facts.tag)
  const entries = facts.entries.map((entry) => Entry.create(entry.seq, entry.effectiveAtMs, entry.postedAtMs, entry.lines, entry.description, structuredClone(entry.metadata), store))
  return { ...structuredClone({ ...facts, entries: [] }), entries }
}
