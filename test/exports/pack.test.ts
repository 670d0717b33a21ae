/**
 * The audit pack's pages (src/exports/pack.ts) over a stand-in shard: the first page read with the writer's page
 * size, a refusal answered as it is; then PackSource hands every item of every page to the writer in order, the
 * head once, end() after the last page only, pulls each next page from the position the last one named, fails on
 * a refused page and lets the writer go on close.
 */
import t from 'tap'
import { firstPackPage, packPageItemsMax, PackSource, type PackHead, type PackLine, type PackWriter, type SectionName } from '../../src/exports/pack.ts'
import type { PackPage } from '../../src/ledger/pack-pages.ts'
import type { Reply } from '../../src/shard/operation.ts'
import { packHead, packLine } from '../support/pack-items.ts'
import { scriptedShard } from '../support/scripted-shard.ts'

const ok = (page: PackPage): Reply => ({ status: 200, headers: [], body: JSON.stringify(page) })

/** A writer that notes each call, and whose take gives the calls since the last take. */
class RecordingWriter implements PackWriter {
  readonly itemsPerPage?: number
  calls: string[] = []
  closed = false
  constructor(itemsPerPage?: number) { this.itemsPerPage = itemsPerPage }
  begin(head: PackHead): void { this.calls.push(`begin ${String(head.window.id)}`) }
  section(name: SectionName): void { this.calls.push(`section ${name}`) }
  line(item: PackLine): void { this.calls.push(`line ${String(item.line.id)}`) }
  match(item: Record<string, unknown>): void { this.calls.push(`match ${String(item.id)}`) }
  historyEvent(item: Record<string, unknown>): void { this.calls.push(`history ${String(item.type)}`) }
  end(): void { this.calls.push('end') }
  take(): string { const out = this.calls.join('|'); this.calls = []; return out }
  close(): void { this.closed = true }
}

const position = (section: number, index: number) => ({ section, index, lengths: [2, 1, 1] as const })
const pages: PackPage[] = [
  { head: packHead(), items: [{ section: 'lines' }, { line: packLine(1, 5) }], next: position(0, 1) },
  { head: null, items: [{ line: packLine(2, 6) }, { section: 'matches' }, { match: { id: 'mat_1' } }], next: position(2, 0) },
  { head: null, items: [{ section: 'history' }, { history: { type: 'closed' } }], next: null },
]

t.test('the first page: a pack read of the window with the key\'s visibility, the time and the writer\'s page size', async (t) => {
  const { shard, sent } = scriptedShard([ok(pages[0]), ok(pages[0]), { status: 404, headers: [], body: '{"error":{"code":"not_found"}}' }])
  const request = { shard, workspace: 'ws1', window: 'rec_1', visibility: ['assets:*'], atMs: 1_700_000_000_000 }
  const first = await firstPackPage(request, new RecordingWriter())
  t.same(first.page, pages[0])
  t.same(sent[0], { op: 'pack', workspace: 'ws1', visibility: ['assets:*'], window: 'rec_1', position: null, itemsMax: packPageItemsMax, atMs: 1_700_000_000_000 })
  await firstPackPage(request, new RecordingWriter(250))
  t.equal((sent[1] as { itemsMax: number }).itemsMax, 250, 'a slower format\'s smaller pages')
  const missing = await firstPackPage(request, new RecordingWriter())
  t.equal(missing.page, null)
  t.equal(missing.reply.status, 404, 'an unknown window answers the request')
})

t.test('every item of every page in order, one chunk a page, the next page from the position the last one named', async (t) => {
  const { shard, sent } = scriptedShard([ok(pages[1]), ok(pages[2])])
  const writer = new RecordingWriter(2)
  const source = new PackSource({ shard, workspace: 'ws1', window: 'rec_1', visibility: null, atMs: 5 }, writer, pages[0])
  const chunks: string[] = []
  for (let step = 0; step < 10; step++) {
    const chunk = await source.next()
    if (chunk === null) break
    chunks.push(chunk as string)
    t.equal(sent.length, step, 'a page is read only when its chunk is asked for')
  }
  t.same(chunks, [
    'begin rec_abc1234000000001|section lines|line l1',
    'line l2|section matches|match mat_1',
    'section history|history closed|end',
  ])
  t.same(sent.map((operation) => (operation as { position: unknown }).position), [position(0, 1), position(2, 0)])
  t.ok(sent.every((operation) => (operation as { itemsMax: number }).itemsMax === 2 && (operation as { atMs: number }).atMs === 5), 'the same page size and time on every page')
  t.equal(await source.next(), null, 'still done')
  t.equal(sent.length, 2)
})

t.test('a refused later page fails the stream; close lets the writer go and ends it', async (t) => {
  const { shard } = scriptedShard([{ status: 503, headers: [], body: 'busy' }])
  const source = new PackSource({ shard, workspace: 'ws1', window: 'rec_1', visibility: null, atMs: 5 }, new RecordingWriter(), pages[0])
  await source.next()
  await t.rejects(source.next(), /an export page was refused: 503 busy/)
  const writer = new RecordingWriter()
  const closing = scriptedShard([])
  const closed = new PackSource({ shard: closing.shard, workspace: 'ws1', window: 'rec_1', visibility: null, atMs: 5 }, writer, { ...pages[0], next: null })
  t.equal(await closed.next(), 'begin rec_abc1234000000001|section lines|line l1|end', 'a one-page pack ends on its first chunk')
  closed.close()
  t.ok(writer.closed)
  t.equal(await closed.next(), null)
  t.equal(closing.sent.length, 0)
})
