/**
 * src/ledger/pack-pages.ts on its own, over a window made by the real commands: the audit pack as pages of at
 * most itemsMax items (section starts not counted), the head on the first page only, sections in order (lines
 * with their covering match and entries, matches active and reversed, history), the pages chaining by position
 * to a last one whose next is null, whatever the page size; the section lengths fixed at the first page while
 * the window grows; a window unknown or hidden is not_found.
 */
import t from 'tap'
import type { Outcome } from '../../src/ledger/outcome.ts'
import { packPage, sectionNames, type PackItem, type PackPage, type PackPosition } from '../../src/ledger/pack-pages.ts'
import { machine, ok, posting, run, type Machine } from '../support/workspace-machine.ts'

const nowMs = Date.parse('2026-12-01T12:00:00.000Z')
const exportMs = Date.parse('2026-12-05T08:30:00.000Z')

/**
 * A November window in Berlin time on the bank account (EUR): lines l1..l4 of 100, 250, 40, 40; l1 matched to its
 * entry, l2 matched and reversed, l4 written off (the fee the books lack: matched 40); 430 claimed, 390 in the books.
 */
function november(): { ctx: Machine; window: string; entries: string[] } {
  const ctx = machine([], nowMs)
  for (const name of ['assets:bank', 'income:sales']) ok(run(ctx, { type: 'account.create', name, tags: [], currency: 'EUR' }))
  const entries = [100, 250, 40].map((amount, day) => ok(run(ctx, posting([['assets:bank', amount], ['income:sales', -amount]], `2026-11-0${day + 2}T10:00:00Z`))).id as string)
  const window = ok(run(ctx, { type: 'window.open', label: 'Nov', accounts: ['assets:bank'], from: '2026-11-01', to: '2026-11-30', claimed_movement: 430, statement_ref: 'st-11', tolerance: 0, time_zone: 'Europe/Berlin' })).id as string
  const lines = [[100, '2026-11-02'], [250, '2026-11-03'], [40, '2026-11-04'], [40, '2026-11-05']] as const
  ok(run(ctx, { type: 'window.lines.add', window, lines: lines.map(([amount, date]) => ({ amount, date, reference: null, description: null })) }))
  ok(run(ctx, { type: 'match.create', window, statement_lines: ['l1'], entries: [entries[0]], strategy: 'manual', reason: null }))
  const reversed = ok(run(ctx, { type: 'match.create', window, statement_lines: ['l2'], entries: [entries[1]], strategy: 'manual', reason: 'first try' })).id as string
  ok(run(ctx, { type: 'match.reverse', window, match: reversed }))
  ok(run(ctx, { type: 'match.create', window, statement_lines: ['l4'], entries: [], strategy: 'write_off', reason: 'bank fee' }))
  return { ctx, window, entries }
}

function page(outcome: Outcome): PackPage {
  if (!outcome.ok) throw new Error(`expected a page, got ${outcome.code}`)
  return outcome.body as PackPage
}

/** Every page from the first, bounded; the pages and their items in order. */
function allPages(ctx: Machine, window: string, itemsMax: number): { pages: PackPage[]; items: PackItem[] } {
  const pages: PackPage[] = []
  let position: PackPosition | null = null
  do {
    pages.push(page(packPage(ctx.state, window, null, position, itemsMax, exportMs)))
    position = pages[pages.length - 1].next
  } while (position !== null && pages.length < 1000)
  return { pages, items: pages.flatMap((each) => each.items) }
}

/** An item in a short form: `lines`, `line l1 mat_…`, `match mat_… reversed`, `history opened`. */
function label(item: PackItem): string {
  if ('section' in item) return item.section
  if ('line' in item) return `line ${item.line.line.id} ${item.line.match === null ? '-' : item.line.match.id} ${item.line.entries.map((entry) => entry.id).join(',')}`
  if ('match' in item) return `match ${item.match.id} ${item.match.reversed_at === null ? 'active' : 'reversed'}`
  return `history ${item.history.type}`
}

t.test('one page: the head, then the sections in order with every item', async (t) => {
  const { ctx, window, entries } = november()
  const only = page(packPage(ctx.state, window, null, null, 100, exportMs))
  t.equal(only.next, null, 'everything fits: this is the last page')
  const head = only.head!
  t.match(head, { format: 'trueup.reconciliation-export', version: 1, exported_at: '2026-12-05T08:30:00.000Z', time_zone: 'Europe/Berlin', closed_by: null })
  t.equal(head.window.id, window)
  t.equal(head.window.claimed_movement, 430)
  t.same(head.accounts.map((account) => [account.name, account.currency]), [['assets:bank', 'EUR']], 'the window\'s accounts only, with their currency')
  t.equal(head.matched, 40, 'claimed 430 − derived 390 − residual 0: the write-off\'s 40; the manual match and the reversed one add nothing')
  const matches = ctx.state.windows.matches.map((match) => match.id)
  t.same(only.items.map(label), [
    'lines', `line l1 ${matches[0]} ${entries[0]}`, 'line l2 - ', 'line l3 - ', `line l4 ${matches[2]} `,
    'matches', `match ${matches[0]} active`, `match ${matches[1]} reversed`, `match ${matches[2]} active`,
    'history', ...ctx.state.windows.windows[0].history.map((event) => `history ${event.type}`),
  ])
  t.same(sectionNames, ['lines', 'matches', 'history'])
  t.equal((only.items[1] as any).line.line.match, matches[0], 'the sealed line names its match')
  t.equal((only.items[1] as any).line.entries[0].amount, 100)
})

t.test('pages of any size make the same pack; the head on the first only; section starts not counted', async (t) => {
  const { ctx, window } = november()
  const whole = allPages(ctx, window, 1000)
  t.equal(whole.pages.length, 1)
  const itemCount = whole.items.filter((item) => !('section' in item)).length
  for (const itemsMax of [1, 2, 3, 4, 5, itemCount - 1, itemCount]) {
    const { pages, items } = allPages(ctx, window, itemsMax)
    t.same(items.map(label), whole.items.map(label), `${itemsMax} a page: the same items in the same order`)
    t.same(pages.map((each) => each.head === null), pages.map((_, index) => index > 0), `${itemsMax} a page: the head on the first page only`)
    for (const each of pages) t.ok(each.items.filter((item) => !('section' in item)).length <= itemsMax, `${itemsMax} a page: never more items`)
    t.equal(pages.slice(0, -1).every((each) => each.items.filter((item) => !('section' in item)).length === itemsMax), true, `${itemsMax} a page: every page but the last is full`)
    // The last page holds what is left: nothing, when the items filled the page before it exactly.
    t.equal(pages.length, Math.floor(itemCount / itemsMax) + 1, `${itemsMax} a page: full pages, then the rest`)
  }
  const second = page(packPage(ctx.state, window, null, { section: 0, index: 4, lengths: [4, 3, 6] }, 1, exportMs))
  t.same(second.items.map(label).slice(0, 2), ['matches', `match ${ctx.state.windows.matches[0].id} active`], 'from the end of a section: the next section\'s start, then its first item')
  t.same(second.next, { section: 1, index: 1, lengths: [4, 3, 6] }, 'the position after the item given, the lengths carried')
})

t.test('no items a page: the first section\'s start only, and the position to start from', async (t) => {
  const { ctx, window } = november()
  const first = page(packPage(ctx.state, window, null, null, 0, exportMs))
  t.same(first.items, [{ section: 'lines' }])
  t.match(first.next, { section: 0, index: 0 })
  t.not(first.head, null)
})

t.test('the lengths taken at the first page hold while the window grows', async (t) => {
  const { ctx, window } = november()
  const first = page(packPage(ctx.state, window, null, null, 2, exportMs))
  const lengths = first.next!.lengths
  t.same(lengths, [4, 3, ctx.state.windows.windows[0].history.length])
  ok(run(ctx, { type: 'window.lines.add', window, lines: [{ amount: 5, date: '2026-11-20', reference: null, description: null }] }))
  let items = [...first.items]
  let position: PackPosition | null = first.next
  for (let guard = 0; position !== null && guard < 100; guard++) {
    const next = page(packPage(ctx.state, window, null, position, 2, exportMs))
    t.same(next.next === null ? lengths : next.next.lengths, lengths, 'every position carries the first page\'s lengths')
    items = items.concat(next.items)
    position = next.next
  }
  t.equal(items.filter((item) => 'line' in item).length, 4, 'the line added after the first page is not in this pack')
  t.equal(items.filter((item) => 'history' in item).length, lengths[2], 'nor its history event')
  t.equal(allPages(ctx, window, 2).items.filter((item) => 'line' in item).length, 5, 'a pack begun after it has it')
})

t.test('a closed window: who closed it, by id and name', async (t) => {
  const { ctx, window } = november()
  const close = run(ctx, { type: 'window.transition', window, state: 'closed', reason: 'done', key_name: 'Ana Auditor' })
  t.equal(close.ok, true, close.ok ? 'closed' : `${close.code}: ${close.message}`)
  const head = page(packPage(ctx.state, window, null, null, 10, exportMs)).head!
  t.same(head.closed_by, { id: 'key_test', name: 'Ana Auditor' })
})

t.test('an account from before currencies: no currency key', async (t) => {
  const { ctx, window } = november()
  delete (ctx.state.accounts[0] as { currency?: string }).currency
  t.same(page(packPage(ctx.state, window, null, null, 10, exportMs)).head!.accounts[0], { id: ctx.state.accounts[0].id, name: 'assets:bank' })
})

t.test('a window unknown, of another workspace or hidden from the key: not_found', async (t) => {
  const { ctx, window } = november()
  for (const [id, visibility] of [['rec_abcdef000000009', null], ['rec_zzzzzz000000001', null], [window, ['income:*']]] as const) {
    t.match(packPage(ctx.state, id, visibility, null, 10, exportMs), { ok: false, code: 'not_found', message: 'No such reconciliation.' }, `${id} ${JSON.stringify(visibility)}`)
  }
  t.equal(packPage(ctx.state, window, ['assets:*'], null, 10, exportMs).ok, true, 'a key that sees every account of the window')
})
