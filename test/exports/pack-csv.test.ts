/**
 * The CSV audit pack writer (src/exports/pack-csv.ts) fed a head and items directly: a byte order mark and the
 * header once, then one row per statement line with its amount in minor units and in the currency's decimals, the
 * currency of the window's account, the strategy and reason of the match covering it and its entries (one per
 * line of a quoted cell); matches and history are not rows; text cells guarded, amounts numbers.
 */
import { parse } from 'csv-parse/sync'
import t from 'tap'
import { CsvPackWriter, packCsvColumns } from '../../src/exports/pack-csv.ts'
import { chunksText, packHead, packLine, packMatch, samplePack, writePack, type PackContent } from '../support/pack-items.ts'

const header = 'line,date,amount,amount_decimal,currency,reference,description,match,strategy,match_reason,entries\r\n'

t.test('the columns, then one row per line with its covering match; text guarded, amounts numbers', async (t) => {
  const text = chunksText(writePack(new CsvPackWriter(), samplePack(), 1_000))
  t.ok(text.startsWith('\uFEFF' + header), 'a byte order mark, then the header row')
  t.same(packCsvColumns, header.trim().split(','))
  const rows = parse(text, { bom: true, columns: false }) as string[][]
  t.same(rows.slice(1), [
    ['l1', '2026-03-10', '150000', '1500.00', 'EUR', 'INV-1', 'Invoice, "one"', 'mat_abc1234000000001', 'amount_and_date', '', 'ent_abc1234000000007 2026-03-10 1000.00 first half\nent_abc1234000000008 2026-03-11 500.00'],
    ['l2', '2026-03-11', '10000', '100.00', 'EUR', "'=cmd|calc", "'-refund", 'mat_abc1234000000004', 'amount_and_date', '', ''],
    ['l3', '2026-03-30', '1000', '10.00', 'EUR', '', 'fee', 'mat_abc1234000000002', 'write_off', "'@bank charges, see letter", ''],
    ['l4', '2026-03-31', '10', '0.10', 'EUR', '', '', 'mat_abc1234000000002', 'write_off', "'@bank charges, see letter", ''],
  ], 'lines only: the four matches and four history events are not rows; one matched entry per line of its cell')
  t.match(text, /,"ent_abc1234000000007 2026-03-10 1000\.00 first half\nent_abc1234000000008 2026-03-11 500\.00"\r\n/, 'the entries cell, holding a line break, is quoted')
  // Read as a spreadsheet does, a record ending at CRLF, LF or CR alike: still four rows of eleven cells.
  const lenient = parse(text, { bom: true, record_delimiter: ['\r\n', '\n', '\r'] }) as string[][]
  t.same(lenient.map((row) => row.length), [11, 11, 11, 11, 11])
  t.equal(text.split('\r\n').length, 6, 'header, four rows, and the empty rest after the last CRLF')
})

t.test('a negative amount is a number cell; an unmatched line has empty match cells; no currency is an empty cell', async (t) => {
  const pack: PackContent = { head: packHead({ accounts: [{ id: 'acc_abc1234000000001', name: 'assets:bank' }] }), lines: [packLine(7, -4200, { description: '=1+1' })], matches: [], history: [] }
  const text = chunksText(writePack(new CsvPackWriter(), pack, 10))
  t.equal(text, '\uFEFF' + header + "l7,2026-03-10,-4200,-4200,,,'=1+1,,,,\r\n", 'without a currency amount_decimal repeats the minor units')
})

t.test('the currency is the window\'s first account\'s', async (t) => {
  const head = packHead({ accounts: [{ id: 'acc_abc1234000000001', name: 'assets:yen', currency: 'JPY' }, { id: 'acc_abc1234000000002', name: 'assets:eur', currency: 'EUR' }] })
  const text = chunksText(writePack(new CsvPackWriter(), { head, lines: [packLine(1, 5)], matches: [], history: [] }, 10))
  t.equal(parse(text, { bom: true })[1][4], 'JPY')
  t.equal(parse(text, { bom: true })[1][3], '5', 'JPY has no decimals')
})

t.test('the header comes once, in the first chunk, whatever the page size; the rows are the same', async (t) => {
  const many: PackContent = {
    head: packHead(),
    lines: Array.from({ length: 23 }, (_, index) => packLine(index + 1, index - 11, { match: index % 2 === 0 ? packMatch(`mat_abc12340000000${10 + index}`, 'manual', [`l${index + 1}`], index - 11, `why ${index}`) : null })),
    matches: [], history: [],
  }
  const whole = chunksText(writePack(new CsvPackWriter(), many, 1_000))
  for (const pageSize of [1, 4, 10]) {
    const chunks = writePack(new CsvPackWriter(), many, pageSize)
    t.equal(chunksText(chunks), whole, `pages of ${pageSize}`)
    t.ok(String(chunks[0]).startsWith('\uFEFF' + header) && chunks.slice(1).every((chunk) => !String(chunk).includes('\uFEFF') && !String(chunk).includes('line,date')), 'BOM and header only in the first chunk')
  }
  t.equal((parse(whole, { bom: true }) as string[][]).length, 24)
})

t.test('an empty window is the header alone', async (t) => {
  t.equal(chunksText(writePack(new CsvPackWriter(), { head: packHead(), lines: [], matches: [], history: [] }, 10)), '\uFEFF' + header)
})

t.test('close drops the rows held', async (t) => {
  const writer = new CsvPackWriter()
  writer.begin(packHead())
  t.equal(writer.take(), '\uFEFF' + header)
  writer.line(packLine(1, 1))
  writer.close()
  t.equal(writer.take(), '', 'nothing after close')
})
