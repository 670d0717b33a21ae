/** Pages and cursors (src/ledger/pages.ts): cursors bound to their list, and the scan budget of one page. */
import t from 'tap'
import { collectPage, cursorSeq, decodeCursor, encodeCursor, listScope, pageItemsScannedMax, seqKeys } from '../../src/ledger/pages.js'

t.test('a cursor names its list and filters', async (t) => {
  const scope = listScope('lines', 'rec_1', 'matched')
  const cursor = encodeCursor(scope, { atMs: 0, seq: 7 })
  t.same(decodeCursor(scope, cursor), { atMs: 0, seq: 7 })
  t.equal(decodeCursor(listScope('lines', 'rec_1', 'unmatched'), cursor), null, 'other filters')
  t.equal(decodeCursor(listScope('lines', 'rec_2', 'matched'), cursor), null, 'another window')
  t.equal(decodeCursor(listScope('matches', 'rec_1', 'matched'), cursor), null, 'another list')
  t.equal(cursorSeq(listScope('history', 'rec_1'), cursor), null)
  t.equal(cursorSeq(scope, null), 1, 'no cursor: from the start')
  t.equal(decodeCursor(scope, Buffer.from('7.7').toString('base64url')), null, 'an unscoped cursor')
  t.not(listScope('entries', 'a', null), listScope('entries', null, 'a'), 'filters are positional')
})

t.test('a page examines at most pageItemsScannedMax items, then ends where it stopped', async (t) => {
  const scope = listScope('test')
  const total = pageItemsScannedMax * 2 + 5
  // Only every 4,000th item passes the filter: a full page would need the whole index.
  const keep = (seq: number) => seq % 4000 === 0
  let examined = 0
  const view = ({ seq }: { seq: number }) => {
    examined += 1
    return keep(seq) ? seq : undefined
  }
  const first = collectPage(scope, seqKeys(1, total), 100, view)
  t.equal(examined, pageItemsScannedMax, 'the budget bounds the work')
  t.same(first.data, [4000, 8000])
  t.equal(cursorSeq(scope, first.next_cursor), pageItemsScannedMax + 1, 'the cursor names the first item not examined')
  const seen = [...first.data]
  let cursor = first.next_cursor
  for (let pages = 0; cursor !== null && pages < 10; pages++) {
    const page = collectPage(scope, seqKeys(cursorSeq(scope, cursor)!, total), 100, view)
    seen.push(...page.data)
    cursor = page.next_cursor
  }
  t.equal(cursor, null, 'the walk ends')
  t.same(seen, Array.from({ length: Math.floor(total / 4000) }, (_, index) => (index + 1) * 4000), 'following the cursors finds every kept item once')
  const full = collectPage(scope, seqKeys(1, 10), 3, ({ seq }) => seq)
  t.same([full.data, cursorSeq(scope, full.next_cursor)], [[1, 2, 3], 4], 'a full page names the next item')
  t.equal(collectPage(scope, seqKeys(1, 3), 3, ({ seq }) => seq).next_cursor, null, 'no cursor when the page holds the rest')
})
