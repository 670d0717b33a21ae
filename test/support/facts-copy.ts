/**
 * A deep copy of a workspace's facts, as encoding a snapshot makes one (the facts share the live state's
 * objects). structuredClone keeps own fields only, so each entry is made an Entry again, as a snapshot's
 * reader makes it.
 */
import type { WorkspaceFacts } from '../../src/ledger/restore.ts'
import { Entry } from '../../src/ledger/state.ts'

export function copiedFacts(facts: WorkspaceFacts): WorkspaceFacts {
  const copy = structuredClone(facts)
  return { ...copy, entries: copy.entries.map((entry) => new Entry(entry.tag, entry.seq, entry.data, entry.description, entry.metadata)) }
}
