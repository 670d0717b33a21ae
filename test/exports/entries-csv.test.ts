/**
 * The entries export (src/exports/entries-csv.ts) over a stand-in shard that answers `entry.list` reads from a
 * script: the first page (read with the request's checks) gives the byte order mark, the header and its rows; each
 * later page is pulled with the previous page's cursor, only when asked for, and adds rows only; one row per entry
 * line; a refused page fails the stream; close stops it.
 */
import { parse } from 'csv-parse/sync'
import t from 'tap'
import { EntriesCsvSource, entriesCsvColumns, entriesPage, type EntriesPage, type EntriesRequest } from '../../src/exports/entries-csv.ts'
import type { EntryListQuery } from '../../src/ledger/entry-list.ts'
import type { Reply } from '../../src/shard/operation.ts'
import { scriptedShard } from '../support/scripted-shard.ts'

const header = 'entry,effective_at,posted_at,description,account,account_id,amount,currency,metadata\r\n'
const query: EntryListQuery = { account: 'assets:bank', reconciliation: null, fromMs: 1_000, toMs: null, limit: 1_000, cursor: null }

const ok = (page: EntriesPage): Reply => ({ status: 200, headers: [], body: JSON.stringify(page) })

function entry(id: string, description: string | null, lines: [string, number, string?][], metadata: Record<string, string> | null = null) {
  return {
    id, effective_at: '2026-03-10T09:00:00.000Z', posted_at: '2026-03-10T09:00:01.000Z', description, metadata,
    lines: lines.map(([account, amount, currency]) => ({ account, account_id: `acc_${account.replace(/\W/g, '')}`, amount, ...(currency === undefined ? {} : { currency }) })),
  }
}

t.test('entriesPage reads one page of entry.list with the query, the cursor and the key\'s visibility', async (t) => {
  const page: EntriesPage = { data: [], next_cursor: 'c2' }
  const { shard, sent } = scriptedShard([ok(page), { status: 422, headers: [], body: '{"error":{"code":"account_unknown"}}' }])
  const request: EntriesRequest = { shard, workspace: 'ws1', query, visibility: ['assets:*'] }
  const first = await entriesPage(request, null)
  t.same(first.page, page)
  t.same(sent[0], { op: 'query', workspace: 'ws1', visibility: ['assets:*'], query: { name: 'entry.list', params: { ...query, cursor: null } } })
  const refused = await entriesPage(request, 'c9')
  t.equal(refused.page, null, 'no page when the read is refused')
  t.equal(refused.reply.status, 422, 'the refusal answers the request')
  t.equal((sent[1] as { query: { params: { cursor: string } } }).query.params.cursor, 'c9')
})

t.test('one row per entry line, in order, the entry\'s fields on each; text guarded, amounts numbers, metadata as JSON', async (t) => {
  const first: EntriesPage = {
    data: [
      entry('ent_1', '=HYPERLINK("x")', [['assets:bank', 300, 'EUR'], ['income:sales', -300, 'EUR']], { order: '42', note: 'a,b' }),
      entry('ent_2', null, [['assets:bank', -40], ['-expenses:fees', 40]]),
    ],
    next_cursor: null,
  }
  const { shard, sent } = scriptedShard([])
  const source = new EntriesCsvSource({ shard, workspace: 'ws1', query, visibility: null }, first)
  const text = await source.next() as string
  t.ok(text.startsWith('\uFEFF' + header))
  t.same(entriesCsvColumns, header.trim().split(','))
  t.same((parse(text, { bom: true }) as string[][]).slice(1), [
    ['ent_1', '2026-03-10T09:00:00.000Z', '2026-03-10T09:00:01.000Z', "'=HYPERLINK(\"x\")", 'assets:bank', 'acc_assetsbank', '300', 'EUR', '{"order":"42","note":"a,b"}'],
    ['ent_1', '2026-03-10T09:00:00.000Z', '2026-03-10T09:00:01.000Z', "'=HYPERLINK(\"x\")", 'income:sales', 'acc_incomesales', '-300', 'EUR', '{"order":"42","note":"a,b"}'],
    ['ent_2', '2026-03-10T09:00:00.000Z', '2026-03-10T09:00:01.000Z', '', 'assets:bank', 'acc_assetsbank', '-40', '', ''],
    ['ent_2', '2026-03-10T09:00:00.000Z', '2026-03-10T09:00:01.000Z', '', "'-expenses:fees", 'acc_expensesfees', '40', '', ''],
  ])
  t.match(text, /,-300,EUR,/, 'a negative amount is a number cell, not guarded text')
  t.equal(await source.next(), null, 'a single page: done')
  t.equal(sent.length, 0, 'no further read')
})

t.test('later pages are pulled one at a time with the previous cursor, and add rows only', async (t) => {
  const pages: EntriesPage[] = [
    { data: [entry('ent_3', 'three', [['assets:bank', 3]])], next_cursor: 'cursor-b' },
    { data: [], next_cursor: 'cursor-c' },
    { data: [entry('ent_4', 'four', [['assets:bank', 4]])], next_cursor: null },
  ]
  const { shard, sent } = scriptedShard(pages.map(ok))
  const source = new EntriesCsvSource({ shard, workspace: 'ws1', query, visibility: ['assets:bank'] }, { data: [entry('ent_1', 'one', [['assets:bank', 1]])], next_cursor: 'cursor-a' })
  const chunks: string[] = []
  for (let step = 0; step < 10; step++) {
    const chunk = await source.next()
    if (chunk === null) break
    chunks.push(chunk)
    t.equal(sent.length, step, `page ${step + 1} read only once asked for`)
  }
  t.equal(chunks.length, 4)
  t.same(sent.map((operation) => (operation as { query: { params: { cursor: string } } }).query.params.cursor), ['cursor-a', 'cursor-b', 'cursor-c'])
  t.ok(sent.every((operation) => (operation as { visibility: unknown }).visibility !== null), 'every page with the key\'s visibility')
  t.equal(chunks[2], '', 'an empty page adds nothing (no second header)')
  t.ok(chunks.slice(1).every((chunk) => !chunk.includes('\uFEFF') && !chunk.includes('entry,effective_at')))
  t.same((parse(chunks.join(''), { bom: true }) as string[][]).map((row) => row[0]), ['entry', 'ent_1', 'ent_3', 'ent_4'])
})

t.test('a refused later page fails the stream with its status; close stops it without another read', async (t) => {
  const { shard, sent } = scriptedShard([{ status: 503, headers: [], body: '{"error":{"code":"unavailable"}}' }])
  const source = new EntriesCsvSource({ shard, workspace: 'ws1', query, visibility: null }, { data: [], next_cursor: 'cursor-a' })
  t.equal(await source.next(), '\uFEFF' + header, 'an empty first page is the header alone')
  await t.rejects(source.next(), /an export page was refused: 503/)
  const closing = scriptedShard([ok({ data: [], next_cursor: null })])
  const closed = new EntriesCsvSource({ shard: closing.shard, workspace: 'ws1', query, visibility: null }, { data: [entry('ent_1', 'one', [['assets:bank', 1]])], next_cursor: 'cursor-a' })
  closed.close()
  t.equal(await closed.next(), null, 'nothing after close, not even the first page')
  t.equal(closing.sent.length, 0)
  t.equal(sent.length, 1)
})
