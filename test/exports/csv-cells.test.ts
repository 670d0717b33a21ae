/**
 * CSV cells (src/exports/csv-cells.ts): RFC 4180 text (CRLF records, quoted fields with doubled quotes) that
 * csv-parse reads back cell for cell, and the CSV-injection guard: a text cell a spreadsheet would run as a
 * formula gets a leading ', a number never does.
 */
import { parse } from 'csv-parse/sync'
import t from 'tap'
import { byteOrderMark, csvRows, guardText } from '../../src/exports/csv-cells.ts'

t.test('the guard prefixes exactly the cells that start with =, +, -, @, tab or CR', async (t) => {
  for (const risky of ['=SUM(A1:A9)', '+1', '-1', '@cmd', '\tx', '\rx', '=', '-', '=HYPERLINK("http://x","y")']) {
    t.equal(guardText(risky), `'${risky}`, JSON.stringify(risky))
  }
  for (const plain of ['', 'a=b', 'x+1', ' =1', "'=1", 'rent - October', '€5', '1-2', 'é=', '\u00a0=1']) {
    t.equal(guardText(plain), plain, `${JSON.stringify(plain)} stays as it is`)
  }
})

t.test('rows: a header first, CRLF after every record, numbers as numbers, null as an empty cell', async (t) => {
  t.equal(csvRows([['a', 1, null], ['b', -250, 'x']], ['name', 'amount', 'note']), 'name,amount,note\r\na,1,\r\nb,-250,x\r\n')
  t.equal(csvRows([['a', 0]], null), 'a,0\r\n', 'no header when none is given')
  t.equal(csvRows([], ['only', 'header']), 'only,header\r\n')
  t.equal(csvRows([], null), '', 'nothing at all')
})

t.test('a negative amount is a number, not guarded; the same text as a string is', async (t) => {
  t.equal(csvRows([[-1050, '-1050']], null), "-1050,'-1050\r\n")
  t.equal(csvRows([[9007199254740991, -9007199254740991]], null), '9007199254740991,-9007199254740991\r\n', 'safe integers printed whole')
})

t.test('RFC 4180: commas, quotes and line breaks are quoted, quotes doubled; csv-parse reads every cell back', async (t) => {
  const rows = [
    ['a,b', 'say "hi"', 'two\r\nlines', 'tab\tinside', 'plain'],
    ['café ✓ 𝄞', ' lead and trail ', '"', '', 'x'],
  ]
  const text = csvRows(rows, ['c1', 'c2', 'c3', 'c4', 'c5'])
  t.ok(text.startsWith('c1,c2,c3,c4,c5\r\n"a,b","say ""hi""","two\r\nlines",tab\tinside,plain\r\n'), 'quoted, quotes doubled, embedded breaks kept')
  t.ok(text.endsWith('\r\n'))
  t.same(parse(text, { columns: false, relax_column_count: false }), [['c1', 'c2', 'c3', 'c4', 'c5'], ...rows])
})

t.test('a bare LF or CR inside a cell is quoted too: spreadsheets end a record at either', async (t) => {
  const rows = [['lf\nonly', 'cr\ronly', 'x']]
  const text = csvRows(rows, null)
  t.equal(text, '"lf\nonly","cr\ronly",x\r\n')
  // Read as a spreadsheet does, a record ending at CRLF, LF or CR: still one record of three cells.
  t.same(parse(text, { record_delimiter: ['\r\n', '\n', '\r'] }), rows)
})

t.test('a guarded cell that also needs quoting is both; the header is guarded too', async (t) => {
  const text = csvRows([['=1,2', '-"x"', '@a\r\nb']], ['=risky header'])
  t.same(parse(text, { relax_column_count: true }), [["'=risky header"], ["'=1,2", "'-\"x\"", "'@a\r\nb"]])
})

t.test('the byte order mark is U+FEFF, the three bytes EF BB BF in UTF-8', async (t) => {
  t.same([...Buffer.from(byteOrderMark, 'utf8')], [0xef, 0xbb, 0xbf])
})
