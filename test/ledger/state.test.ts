/**
 * A workspace's in-memory state (src/ledger/state.ts): the entry store that packs every entry's timestamps and
 * lines into one array of doubles (offsets, growth, what its JSON holds), an Entry read back from it, and a fresh
 * workspace's state.
 */
import t from 'tap'
import { parseId } from '../../src/ledger/ids.ts'
import { createWorkspaceState, Entry, EntryStore, type SealHasher, type SealSigner } from '../../src/ledger/state.ts'

t.test('begin takes 3 + 2 per line values, one entry after the other, each keeping its offset', async (t) => {
  const store = new EntryStore('abcdef', 8)
  t.equal(store.length, 0)
  t.same(store.toJSON(), { tag: 'abcdef', values: [] }, 'an empty store writes no values')
  const first = store.begin(2, 1000, 2000)
  t.equal(first, 0)
  store.setLine(first, 0, 1, 500)
  store.setLine(first, 1, 2, -500)
  t.equal(store.length, 7)
  const second = store.begin(0, 3000, 4000)
  t.equal(second, 7, 'an entry of no lines takes its three values')
  t.equal(store.length, 10)
  t.same(store.toJSON().values, [2, 1000, 2000, 1, 500, 2, -500, 0, 3000, 4000])
})

t.test('the store grows past its capacity and keeps what it held', async (t) => {
  const store = new EntryStore('abcdef', 4)
  const exact = new EntryStore('abcdef', 5)
  t.equal(exact.begin(1, 1, 2), 0)
  t.equal(exact.values.length, 5, 'an entry that fills the capacity exactly does not grow it')
  const offsets: number[] = []
  for (let i = 0; i < 600; i++) {
    const at = store.begin(1, i, i + 1)
    store.setLine(at, 0, i + 1, -i)
    offsets.push(at)
  }
  t.equal(store.length, 600 * 5)
  t.ok(store.values.length >= store.length, `capacity ${store.values.length}`)
  t.ok(store.values.length >= 1024, 'grows to at least 1024 values at once')
  const wrong = offsets.filter((at, i) => store.values[at] !== 1 || store.values[at + 1] !== i || store.values[at + 2] !== i + 1 || store.values[at + 3] !== i + 1 || store.values[at + 4] !== -i)
  t.same(wrong, [], 'every entry reads back as written, across the growths')
  t.equal(store.toJSON().values.length, store.length, 'the JSON holds the values taken, not the spare capacity')
  const huge = new EntryStore('abcdef', 4)
  t.equal(huge.begin(2000, 0, 0), 0)
  t.ok(huge.values.length >= 4003, 'one entry larger than one and a half times the capacity gets room for all of it')
})

t.test('an Entry reads its values from the store; its id is made from the tag and seq', async (t) => {
  const store = new EntryStore('abcdef')
  const before = Entry.create(1, 10, 20, [{ accountSeq: 3, amount: 1 }], null, null, store)
  const lines = [{ accountSeq: 2, amount: 700 }, { accountSeq: 5, amount: -300 }, { accountSeq: 2, amount: -400 }]
  const entry = Entry.create(2, Date.parse('2026-03-29T01:30:00Z'), Date.parse('2026-03-29T02:30:00Z'), lines, 'rent', { ref: 'r1' }, store)
  t.equal(entry.at, 5, 'after the first entry\'s five values')
  t.equal(entry.effectiveAtMs, Date.parse('2026-03-29T01:30:00Z'))
  t.equal(entry.postedAtMs, Date.parse('2026-03-29T02:30:00Z'))
  t.equal(entry.lineCount, 3)
  t.same(entry.lines, lines)
  t.not(entry.lines, entry.lines, 'lines are made on each read')
  t.same([0, 1, 2].map((i) => [entry.lineAccountSeq(i), entry.lineAmount(i)]), [[2, 700], [5, -300], [2, -400]])
  t.same(entry.accountSeqs(), [2, 5], 'each account once, in the order of the lines')
  t.equal(parseId('ent_', 'abcdef', entry.id), 2)
  t.equal(parseId('ent_', 'abcdef', before.id), 1)
  t.not(entry.id, before.id)
  t.same(JSON.parse(JSON.stringify(entry)), { id: entry.id, seq: 2, lines, effectiveAtMs: entry.effectiveAtMs, postedAtMs: entry.postedAtMs, description: 'rent', metadata: { ref: 'r1' } })
  t.same(before.accountSeqs(), [3])
  const empty = Entry.create(3, 0, 0, [], null, null, store)
  t.same([empty.lineCount, empty.lines, empty.accountSeqs()], [0, [], []], 'no lines: no accounts')
})

t.test('an entry keeps its values when the store grows under it, and two states sharing a store read their own', async (t) => {
  const store = new EntryStore('abcdef', 8)
  const first = Entry.create(1, 111, 222, [{ accountSeq: 1, amount: 5 }], null, null, store)
  const entries = Array.from({ length: 300 }, (_, i) => Entry.create(i + 2, i, i, [{ accountSeq: 2, amount: i }, { accountSeq: 3, amount: -i }], null, null, store))
  t.same([first.effectiveAtMs, first.postedAtMs, first.lines], [111, 222, [{ accountSeq: 1, amount: 5 }]])
  t.same(entries[299].lines, [{ accountSeq: 2, amount: 299 }, { accountSeq: 3, amount: -299 }])
  const copy = new Entry(first.seq, store, first.at, first.description, first.metadata)
  t.same(copy.toJSON(), first.toJSON(), 'an entry is where it is stored, nothing else')
})

t.test('a new workspace state is empty, with the seal parts it was given', async (t) => {
  const state = createWorkspaceState('ws_1', 'abcdef')
  t.equal(state.workspaceId, 'ws_1')
  t.equal(state.tag, 'abcdef')
  t.equal(state.entryStore.tag, 'abcdef', 'the store makes entry ids with the workspace\'s tag')
  t.same([state.accounts, state.entries, state.idempotencyOrder], [[], [], []])
  t.same([state.accountsByName.size, state.accountsByExternalId.size, state.idempotency.size, state.reversedBy.size, state.reverses.size], [0, 0, 0, 0, 0])
  t.equal(state.idempotencyOrderHead, 0)
  t.same([state.sealHasher, state.sealSigner, state.sealKey], [null, null, null], 'bare: no seals')
  const hasher: SealHasher = () => 'h'
  const signer: SealSigner = () => 's'
  const sealed = createWorkspaceState('ws_2', 'ghijkl', hasher, signer, { privateKey: 'p', publicKey: 'q' })
  t.equal(sealed.sealHasher, hasher)
  t.equal(sealed.sealSigner, signer)
  t.same(sealed.sealKey, { privateKey: 'p', publicKey: 'q' })
  t.not(sealed.accounts, state.accounts, 'two workspaces share nothing')
  t.not(sealed.treeArena, state.treeArena)
})
