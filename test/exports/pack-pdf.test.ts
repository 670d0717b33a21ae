/**
 * The PDF audit pack writer (src/exports/pack-pdf.ts) fed a head and items directly, its text read back with
 * pdftotext (poppler-utils, which scripts/ensure-test-tools.sh installs): the window's figures in the currency's
 * decimals, the seal, the three tables with their rows, a write-off's reason, characters outside Latin-1 as ?,
 * long cells going on below; a large pack spans many pages and is handed on while it is written, not at the end.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { PdfPackWriter } from '../../src/exports/pack-pdf.ts'
import { packHead, packHistoryEvent, packLine, packMatch, packWindow, samplePack, sealHex, sealPublicKey, sealSignature, writePack, type PackContent } from '../support/pack-items.ts'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-pack-pdf-'))
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
let files = 0

function pdfOf(pack: PackContent, itemsPerPage = 250): { bytes: Buffer; chunks: Buffer[] } {
  const chunks = writePack(new PdfPackWriter(), pack, itemsPerPage).map((chunk) => chunk as Buffer)
  return { bytes: Buffer.concat(chunks), chunks }
}

function pdfText(bytes: Buffer): { text: string; pages: number } {
  const file = path.join(dir, `pack-${files++}.pdf`)
  fs.writeFileSync(file, bytes)
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  const info = execFileSync('pdfinfo', [file], { encoding: 'utf8' })
  return { text, pages: Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]) }
}

/** The lines of the text holding every one of `parts` (columns are separated by runs of spaces). */
function rowsWith(text: string, ...parts: string[]): string[] {
  return text.split('\n').filter((row) => parts.every((part) => row.includes(part)))
}

t.test('the report: title, window, accounts, period, figures in EUR decimals, who closed it, the seal', async (t) => {
  const { bytes } = pdfOf(samplePack())
  t.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-')
  t.match(bytes.subarray(-8).toString('latin1'), /%%EOF\s*$/)
  const { text, pages } = pdfText(bytes)
  t.equal(pages, 1)
  t.match(text, /Reconciliation: March statement/)
  t.match(text, /Window: rec_abc1234000000001/)
  t.match(text, /Accounts: assets:bank \(acc_abc1234000000001\)/)
  t.match(text, /Currency: EUR/)
  t.match(text, /Period: 2026-03-01 to 2026-03-31, time zone Europe\/Berlin/)
  t.match(text, /Statement: stmt-03/)
  t.match(text, /Claimed movement: 1,610\.10/)
  t.match(text, /Derived movement: 1,500\.00/)
  t.match(text, /Cleared by matches: 1,610\.10/)
  t.match(text, /Residual: 0\.00/)
  t.match(text, /Tolerance: 0\.05/)
  t.match(text, /State: closed/)
  t.match(text, /Closed by: Ana Auditor \(key_abcdef01234567\)/, 'the closer\'s name and key')
  t.match(text, /Close reason: all matched/)
  t.match(text, /Post-close drift: -/, 'no drift yet prints as -')
  t.match(text, /Exported at: 2026-04-03T10:00:00\.000Z/)
  t.ok(text.replace(/\s+/g, '').includes(`Seal(SHA-256):${sealHex}`), 'the seal, whole')
  t.ok(text.replace(/\s+/g, '').includes(sealSignature), 'its signature, whole')
  t.ok(text.replace(/\s+/g, '').includes(sealPublicKey), 'and the public key')
  t.match(text, /Amounts in EUR, 2 decimals\./)
  t.notMatch(text, /Abandon/, 'no abandon rows for a closed window')
})

t.test('the tables: each line with its match and strategy, each match with its reason, each history event with its details', async (t) => {
  const { text } = pdfText(pdfOf(samplePack()).bytes)
  for (const title of ['Statement lines and their matches', 'Matches and write-offs (active and reversed, with reasons)', 'History']) t.match(text, title)
  t.equal(rowsWith(text, 'l1', '2026-03-10', '1,500.00', 'mat_abc1234000000001', 'amount_and_date', 'INV-1', 'Invoice, "one"').length, 1, 'line 1')
  t.equal(rowsWith(text, 'l2', '2026-03-11', '100.00', 'mat_abc1234000000004', '=cmd|calc', '-refund').length, 1, 'line 2, as typed (a PDF runs no formula)')
  t.equal(rowsWith(text, 'l4', '2026-03-31', '0.10', 'mat_abc1234000000002', 'write_off').length, 1, 'line 4')
  t.equal(rowsWith(text, 'mat_abc1234000000002', 'write_off', '10.10', 'l3 l4', '2026-04-01T12:00:00.000Z').length, 1, 'the write-off: both lines, no entries')
  t.match(text, /reason: @bank charges, see letter/, 'its reason under it')
  t.equal(rowsWith(text, 'mat_abc1234000000003', 'manual', '100.00', '2026-04-01T13:00:00.000Z').length, 1, 'the reversed match with its time')
  t.equal(rowsWith(text, '2026-04-01T08:01:00.000Z', 'lines_added', 'open', '1,610.10', 'key_abcdef01234567', 'count=4').length, 1, 'a history event with its detail')
  t.equal(rowsWith(text, '2026-04-02T09:30:00.000Z', 'closed', 'reason=all matched').length, 1)
})

t.test('decimals follow the currency: JPY none, KWD three, none at all in minor units with a note', async (t) => {
  const yen = pdfText(pdfOf({ head: packHead({ accounts: [{ id: 'acc_abc1234000000001', name: 'assets:yen', currency: 'JPY' }] }), lines: [packLine(1, -1234567)], matches: [], history: [] }).bytes).text
  t.match(yen, /Claimed movement: 161,010\b/)
  t.match(yen, /-1,234,567/, 'a negative line amount, grouped, no decimals')
  t.match(yen, /Amounts in JPY, 0 decimals\./)
  const dinar = pdfText(pdfOf({ head: packHead({ accounts: [{ id: 'acc_abc1234000000001', name: 'assets:kwd', currency: 'KWD' }] }), lines: [packLine(1, -5)], matches: [], history: [] }).bytes).text
  t.match(dinar, /Claimed movement: 161\.010/)
  t.match(dinar, /-0\.005/)
  const none = pdfText(pdfOf({ head: packHead({ accounts: [{ id: 'acc_abc1234000000001', name: 'assets:bank' }] }), lines: [], matches: [], history: [] }).bytes).text
  t.match(none, /Claimed movement: 161,010\b/)
  t.notMatch(none, /Currency:/)
  t.match(none, /Amounts in minor units \(the accounts have no currency\)\./)
})

t.test('an abandoned window shows when and why; an open one says it has no seal yet', async (t) => {
  const abandoned = pdfText(pdfOf({ head: packHead({ window: packWindow({ state: 'abandoned', abandoned_at: '2026-04-05T00:00:00.000Z', abandon_reason: 'wrong statement', closed_at: null, closed_by: null, close_reason: null, seal: null }) }), lines: [], matches: [], history: [] }).bytes).text
  t.match(abandoned, /Abandoned at: 2026-04-05T00:00:00\.000Z/)
  t.match(abandoned, /Abandon reason: wrong statement/)
  t.match(abandoned, /Closed at: -/)
  t.match(abandoned, /Seal \(SHA-256\): none \(the window is not closed\)/)
})

t.test('outside Latin-1 prints as ?, Latin-1 as itself; a long cell goes on in its column on the rows below', async (t) => {
  const pack: PackContent = {
    head: packHead({ window: packWindow({ label: 'Café 東京 ✓' }) }),
    lines: [packLine(1, 100, { reference: 'ref-ü-€', description: 'x'.repeat(200) + 'TAIL' })],
    matches: [], history: [],
  }
  const { text } = pdfText(pdfOf(pack).bytes)
  t.match(text, /Reconciliation: Café \?\? \?/, 'é kept, CJK and ✓ as ?')
  t.match(text, /ref-ü-\?/, '€ is not Latin-1')
  const description = text.split('\n').filter((row) => /x{5,}|TAIL/.test(row)).map((row) => row.trim().split(/\s+/).at(-1)).join('')
  t.equal(description, 'x'.repeat(200) + 'TAIL', 'the whole description, over several rows')
})

t.test('a long text under a match (its reason) goes on over further rows instead of being cut', async (t) => {
  const reason = Array.from({ length: 60 }, (_, index) => `word${index}`).join(' ')
  const pack: PackContent = { head: packHead(), lines: [], matches: [packMatch('mat_abc1234000000009', 'write_off', ['l1'], 5, reason)], history: [] }
  const { text } = pdfText(pdfOf(pack).bytes)
  const flat = text.replace(/\s+/g, ' ')
  t.match(flat, /word0 word1/)
  t.match(flat, /word59/, 'the last word printed')
})

t.test('2,000 lines: many pages, each table page with its header, and the PDF handed on page by page', async (t) => {
  const lines = Array.from({ length: 2_000 }, (_, index) => packLine(index + 1, index * 100 - 50_000, { reference: `REF${String(index + 1).padStart(5, '0')}` }))
  const history = Array.from({ length: 30 }, (_, index) => packHistoryEvent('lines_added', '2026-04-01T08:01:00.000Z', 'open', index, { count: 1 }))
  const { bytes, chunks } = pdfOf({ head: packHead(), lines, matches: [], history })
  const { text, pages } = pdfText(bytes)
  t.ok(pages >= 20, `${pages} pages`)
  t.equal(rowsWith(text, 'line', 'date', 'amount', 'match', 'strategy', 'reference', 'description').length, pages, 'the line table\'s header on every page (the history starts on the last)')
  for (const number of [1, 1_000, 2_000]) t.equal(rowsWith(text, `REF${String(number).padStart(5, '0')}`).length, 1, `line ${number} printed once`)
  t.equal(rowsWith(text, 'l2000', '1,499.00').length, 1, 'the last line and its amount (199,900 − 50,000 minor units)')
  t.equal(rowsWith(text, 'lines_added').length, 30, 'every history event')
  t.ok(chunks.length >= 8, `${chunks.length} chunks of at most 250 items`)
  const early = chunks.slice(0, -1).reduce((sum, chunk) => sum + chunk.length, 0)
  t.ok(early > bytes.length / 2, `most of the file (${early} of ${bytes.length} bytes) handed on before the last page`)
})

t.test('250 items a page (the writer is slower than the default page); close drops the document', async (t) => {
  const writer = new PdfPackWriter()
  t.equal(writer.itemsPerPage, 250)
  writer.begin(packHead())
  t.equal(writer.take().subarray(0, 5).toString('latin1'), '%PDF-', 'the start is handed on at once')
  writer.section('lines')
  writer.line(packLine(1, 1))
  writer.close()
  t.equal(writer.take().length, 0, 'nothing more after close')
})
