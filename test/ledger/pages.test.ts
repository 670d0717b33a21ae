/** Pages and cursors (src/ledger/pages.ts): cursors bound to their list, the scan budget and the byte budget of one page. */
import t from 'tap'
import { collectPage, cursorSeq, decodeCursor, encodeCursor, listScope, pageBytesMax, pageItemsScannedMax, seqKeys } from '../../src/ledger/pages.js'
import { listWindows } from '../../src/ledger/windows.js'
import { machine, ok, run } from '../support/workspace-machine.ts'

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

t.test('a page ends before the item that would take its text past pageBytesMax; one item always goes', async (t) => {
  const scope = listScope('test')
  const big = 'x'.repeat(Math.floor(pageBytesMax / 3))
  const items = (total: number) => seqKeys(1, total)
  const first = collectPage(scope, items(10), 1000, ({ seq }) => ({ seq, text: big }))
  t.same(first.data.map((item) => item.seq), [1, 2], 'a third more would pass the bound')
  t.ok(JSON.stringify(first).length <= pageBytesMax, 'the page is within the bound')
  t.equal(cursorSeq(scope, first.next_cursor), 3, 'its cursor names the first item left over')
  const huge = 'y'.repeat(pageBytesMax + 10)
  const alone = collectPage(scope, items(3), 1000, ({ seq }) => ({ seq, nested: [{ text: huge }] }))
  t.same(alone.data.map((item) => item.seq), [1], 'an item over the bound on its own is a page of one: the list still advances')
  t.equal(cursorSeq(scope, alone.next_cursor), 2)
  const wide = collectPage(scope, items(3), 1000, ({ seq }) => ({ seq, text: '\u00e9'.repeat(Math.floor(pageBytesMax / 4)) }))
  t.same(wide.data.map((item) => item.seq), [1], 'counted in UTF-8 bytes (é is two)')
  const small = collectPage(scope, items(1000), 1000, ({ seq }) => ({ seq, text: 'short' }))
  t.equal(small.data.length, 1000, 'small items fill the page as before')
  t.equal(small.next_cursor, null)
})

t.test('windows stored with texts of any length (a log from before the file limits) list in bounded pages', async (t) => {
  const ctx = machine(['assets:bank'], Date.parse('2026-11-26T00:00:00Z'))
  const ref = 'S'.repeat(2 * 1024 * 1024)
  const count = 12
  for (let index = 0; index < count; index++) {
    const month = String(index + 1).padStart(2, '0')
    ok(run(ctx, { type: 'window.open', label: `w${index}`, accounts: ['assets:bank'], from: `2025-${month}-01`, to: `2025-${month}-20`, claimed_movement: 0, statement_ref: ref, tolerance: 0, time_zone: 'UTC' }))
  }
  const seen: string[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const page: any = ok(listWindows(ctx.state, { state: null, account: null, limit: 1000, cursor }, null))
    t.ok(JSON.stringify(page).length <= pageBytesMax + ref.length, `page ${pages + 1} within the bound`)
    seen.push(...page.data.map((window: { label: string }) => window.label))
    cursor = page.next_cursor
    pages += 1
  } while (cursor !== null && pages < count + 1)
  t.ok(pages > 1, 'more than one page')
  t.same(seen, Array.from({ length: count }, (_, index) => `w${index}`), 'every window once, in order')
})
