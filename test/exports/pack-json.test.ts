/**
 * The JSON audit pack writer (src/exports/pack-json.ts) fed a head and items directly: one JSON object, the head's
 * members then `lines` (the sealed fields, then the entries matched), `matches` and `history`, whatever the page size;
 * each take gives only what was written since the last.
 */
import t from 'tap'
import { JsonPackWriter } from '../../src/exports/pack-json.ts'
import { chunksText, packHead, packLine, samplePack, writePack, type PackContent } from '../support/pack-items.ts'

function expected(pack: PackContent): unknown {
  return { ...pack.head, lines: pack.lines.map((item) => ({ ...item.line, entries: item.entries })), matches: pack.matches, history: pack.history }
}

t.test('the pack is one JSON object: the head, then lines, matches and history in that order, and a final newline', async (t) => {
  const pack = samplePack()
  const text = chunksText(writePack(new JsonPackWriter(), pack, 1_000))
  t.ok(text.endsWith('}\n'), 'one object, newline-terminated')
  t.equal(text.indexOf('\n'), text.length - 1, 'on one line')
  const parsed = JSON.parse(text) as Record<string, unknown>
  t.same(parsed, expected(pack))
  t.same(Object.keys(parsed), [...Object.keys(pack.head), 'lines', 'matches', 'history'], 'member order')
  t.same(parsed.lines, pack.lines.map((item) => ({ ...item.line, entries: item.entries })), 'a line: its sealed fields, then the entries matched to it (the covering match is in matches)')
  t.same(Object.keys((parsed.lines as Record<string, unknown>[])[0]), [...Object.keys(pack.lines[0].line), 'entries'], 'the sealed fields first')
  t.equal(text, JSON.stringify(expected(pack)) + '\n', 'byte for byte what JSON.stringify writes')
})

t.test('every page size gives the same bytes; each chunk holds only what its page added', async (t) => {
  const pack = samplePack()
  const whole = chunksText(writePack(new JsonPackWriter(), pack, 1_000))
  for (const pageSize of [1, 2, 3, 5, 11]) {
    const chunks = writePack(new JsonPackWriter(), pack, pageSize)
    t.equal(chunksText(chunks), whole, `pages of ${pageSize}`)
    t.ok(chunks.length > 1 && chunks.every((chunk) => chunk.length > 0), `${chunks.length} chunks, none empty`)
  }
})

t.test('empty sections are empty arrays', async (t) => {
  const pack: PackContent = { head: packHead(), lines: [], matches: [], history: [] }
  const text = chunksText(writePack(new JsonPackWriter(), pack, 10))
  t.ok(text.endsWith(',"lines":[],"matches":[],"history":[]}\n'))
  t.same(JSON.parse(text), expected(pack))
})

t.test('text is escaped as JSON: quotes, backslashes, control characters, non-ASCII and lone surrogates', async (t) => {
  const description = 'say "hi" \\ back\ttab\u0001 café 𝄞 \u2028 \ud800'
  const pack: PackContent = { head: packHead(), lines: [packLine(1, -5, { description, reference: '</script>' })], matches: [], history: [] }
  const text = chunksText(writePack(new JsonPackWriter(), pack, 10))
  const parsed = JSON.parse(text) as { lines: { description: string; reference: string; amount: number }[] }
  t.equal(parsed.lines[0].description, description)
  t.equal(parsed.lines[0].reference, '</script>')
  t.equal(parsed.lines[0].amount, -5)
  t.match(text, /\\ud800/, 'a lone surrogate written as an escape (well-formed JSON.stringify), not as invalid UTF-8')
})

t.test('take empties what is held; close drops it', async (t) => {
  const writer = new JsonPackWriter()
  writer.begin(packHead())
  const first = writer.take()
  t.ok(first.length > 0 && first.startsWith('{"format":"trueup.reconciliation-export"'))
  t.equal(writer.take(), '', 'a second take without writing gives nothing')
  writer.section('lines')
  writer.line(packLine(1, 1))
  writer.close()
  t.equal(writer.take(), '', 'nothing after close')
})
