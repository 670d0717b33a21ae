/**
 * The export handlers (src/api/routes/exports.ts) over a stand-in shard: the audit pack reads its first page as a
 * pack of the path's window with the key's visibility and the request's clock, in the chosen format's page size
 * (json by default; csv, pdf), answers a refused first page as it is, else streams it with that format's media type
 * and writer, as an attachment named after the window's id (characters outside [A-Za-z0-9_.-] replaced); the
 * entries export reads entry.list in pages of 1,000 with the account and instants given, as entries.csv.
 */
import t from 'tap'
import { queryValuesOf } from '../../../src/api/query.ts'
import { exportRoutes } from '../../../src/api/routes/exports.ts'
import { StreamedAnswer, type Chunk } from '../../../src/api/streamed-answer.ts'
import { packPageItemsMax } from '../../../src/exports/pack.ts'
import type { PackPage } from '../../../src/ledger/pack-pages.ts'
import { pageLimitMax } from '../../../src/ledger/pages.ts'
import type { Reply, Shard } from '../../../src/shard/operation.ts'
import { packHead, packWindow } from '../../support/pack-items.ts'
import { atMs, handled, keyRecord, routeOf } from '../../support/route-context.ts'
import { scriptedShard } from '../../support/scripted-shard.ts'

const pack = routeOf(exportRoutes, 'GET', '/v2/reconciliations/:id/export')
const entries = routeOf(exportRoutes, 'GET', '/v2/entries/export')
const visibleKey = { ...keyRecord, accounts: ['assets:*'] }
const notFound: Reply = { status: 404, headers: [], body: '{"error":{"code":"not_found"}}' }

const ok = (page: unknown): Reply => ({ status: 200, headers: [], body: JSON.stringify(page) })
const onePage = (windowId: string): PackPage => ({ head: packHead({ window: packWindow({ id: windowId }) }), items: [], next: null })

async function streamedOf(built: unknown, shard: Shard): Promise<Reply | StreamedAnswer> {
  return (built as { streamed: (shard: Shard) => Promise<Reply | StreamedAnswer> }).streamed(shard)
}

/** Every chunk of the answer as one text, a Buffer's bytes as Latin-1 (bounded: a one-page pack or export is a few chunks). */
async function drained(answer: StreamedAnswer): Promise<string> {
  let text = ''
  for (let pulls = 0; pulls < 20; pulls++) {
    const chunk: Chunk | null = await answer.source.next()
    if (chunk === null) return text
    text += typeof chunk === 'string' ? chunk : chunk.toString('latin1')
  }
  throw new Error('more than 20 chunks')
}

t.test('the pack\'s format: json, csv or pdf, json when absent; the entries\' only csv', async (t) => {
  t.same(queryValuesOf(pack.query ?? [], ''), { ok: true, value: { format: null } })
  for (const format of ['json', 'csv', 'pdf']) t.match(queryValuesOf(pack.query ?? [], `format=${format}`), { ok: true, value: { format } })
  t.match(queryValuesOf(pack.query ?? [], 'format=xlsx'), { ok: false, code: 'request_invalid', details: [{ path: '/format' }] })
  t.match(queryValuesOf(entries.query ?? [], 'format=json'), { ok: false, code: 'request_invalid', details: [{ path: '/format' }] })
  t.match(queryValuesOf(entries.query ?? [], 'format=csv&from=2026-03-29T02:30:00%2B02:00'), { ok: true, value: { format: 'csv', from: Date.UTC(2026, 2, 29, 0, 30), to: null, account: null } })
  t.match(queryValuesOf(entries.query ?? [], 'to=2026-03-29'), { ok: false, details: [{ path: '/to' }] }, 'a date alone is no instant')
})

t.test('the pack: the first page of the path\'s window, a refused one answered as it is', async (t) => {
  const { shard, sent } = scriptedShard([notFound])
  const answer = await streamedOf(handled(pack, { params: { id: 'rec_9' }, query: { format: null }, key: visibleKey }), shard)
  t.same(answer, notFound, 'the reply itself: nothing streamed')
  t.same(sent, [{ op: 'pack', workspace: 'ws_1', visibility: ['assets:*'], window: 'rec_9', position: null, itemsMax: packPageItemsMax, atMs }])
})

t.test('the pack in each format: its media type, its writer and page size, an attachment named after the window', async (t) => {
  const expected = [
    { format: null, mediaType: 'application/json', itemsMax: packPageItemsMax, starts: '{', file: 'json' },
    { format: 'json', mediaType: 'application/json', itemsMax: packPageItemsMax, starts: '{', file: 'json' },
    { format: 'csv', mediaType: 'text/csv; charset=utf-8', itemsMax: packPageItemsMax, starts: '\uFEFF', file: 'csv' },
    { format: 'pdf', mediaType: 'application/pdf', itemsMax: 250, starts: '%PDF-', file: 'pdf' },
  ]
  for (const { format, mediaType, itemsMax, starts, file } of expected) {
    const { shard, sent } = scriptedShard([ok(onePage('rec_abc'))])
    const answer = await streamedOf(handled(pack, { params: { id: 'rec_abc' }, query: { format } }), shard)
    if (!(answer instanceof StreamedAnswer)) throw new Error(`not streamed: ${JSON.stringify(answer)}`)
    t.equal(answer.status, 200)
    t.equal(answer.contentType, mediaType, String(format))
    t.same(answer.headers, [['Content-Disposition', `attachment; filename="rec_abc.${file}"`]])
    t.equal((sent[0] as { itemsMax: number }).itemsMax, itemsMax, `${String(format)}: its page size`)
    t.ok((await drained(answer)).startsWith(starts), `${String(format)}: written by its own writer`)
    t.equal(sent.length, 1, 'one page: nothing more pulled')
  }
})

t.test('the filename: the window\'s id from the page, anything outside [A-Za-z0-9_.-] replaced by _', async (t) => {
  const { shard } = scriptedShard([ok(onePage('rec_"a b/..\\\r\nx'))])
  const answer = await streamedOf(handled(pack, { params: { id: 'rec_1' }, query: { format: 'csv' } }), shard) as StreamedAnswer
  t.same(answer.headers, [['Content-Disposition', 'attachment; filename="rec__a_b_..___x.csv"']], 'no quote, space, slash or line break reaches the header')
})

t.test('the entries: entry.list in pages of 1,000 with the account and the instants, refused or streamed as entries.csv', async (t) => {
  const { shard, sent } = scriptedShard([{ status: 404, headers: [], body: '{"error":{"code":"account_unknown"}}' }, ok({ data: [], next_cursor: null })])
  const query = { format: 'csv', account: 'assets:bank', from: 1_000, to: 2_000 }
  const refused = await streamedOf(handled(entries, { query, key: visibleKey }), shard)
  t.same(refused, { status: 404, headers: [], body: '{"error":{"code":"account_unknown"}}' }, 'the first page\'s refusal answers')
  t.same(sent[0], {
    op: 'query', workspace: 'ws_1', visibility: ['assets:*'],
    query: { name: 'entry.list', params: { account: 'assets:bank', reconciliation: null, fromMs: 1_000, toMs: 2_000, limit: pageLimitMax, cursor: null } },
  })
  const answer = await streamedOf(handled(entries, { query: { format: null, account: null, from: null, to: null } }), shard)
  if (!(answer instanceof StreamedAnswer)) throw new Error('not streamed')
  t.same([answer.status, answer.contentType, answer.headers], [200, 'text/csv; charset=utf-8', [['Content-Disposition', 'attachment; filename="entries.csv"']]])
  t.match((sent[1] as { query: unknown }).query, { params: { account: null, fromMs: null, toMs: null } })
  t.match(await drained(answer), /^\uFEFFentry,effective_at,/, 'the header once the page is pulled')
})
