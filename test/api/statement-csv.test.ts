/**
 * Statement lines from a CSV body (src/api/statement-csv.ts), parsed directly: the header (any order, case and
 * spacing; date and amount required; no unknown or repeated column), each row's values (an integer amount in minor
 * units, a real date, optional reference and description with their lengths and no control characters), errors
 * naming the JSON form's path and the row as a spreadsheet counts it (header, blank rows and multi-line values
 * included), a row of the wrong width, bytes that are not UTF-8 and where they are, and the 10,000-line bound.
 */
import t from 'tap'
import { csvRowsMax, parseStatementCsv } from '../../src/api/statement-csv.ts'

const csv = (text: string) => parseStatementCsv(Buffer.from(text))
const refused = (path: string, message?: string | RegExp) => ({ ok: false, code: 'request_invalid', details: [message === undefined ? { path } : { path, message }] })

t.test('the lines in the JSON form\'s shape: any column order, case and spacing, a BOM and CRLF, quoted values', async (t) => {
  t.same(csv('date,amount\n2026-03-02,150\n'), { ok: true, value: { lines: [{ amount: 150, date: '2026-03-02', reference: null, description: null }] } })
  const text = '\uFEFF Description ,AMOUNT,Reference,date\r\n"Fee, monthly",-1500,,2026-03-31\r\n"two\tcolumns","+7","r""1", 2026-03-01 \r\n'
  t.same(csv(text), {
    ok: true, value: {
      lines: [
        { amount: -1500, date: '2026-03-31', reference: null, description: 'Fee, monthly' },
        { amount: 7, date: '2026-03-01', reference: 'r"1', description: 'two\tcolumns' },
      ],
    },
  }, 'an empty reference is none; the amount and date trimmed, text kept as sent')
  t.same(csv('date,amount,reference\n2026-03-02,1,\t tab\t\n'), { ok: true, value: { lines: [{ amount: 1, date: '2026-03-02', reference: '\t tab\t', description: null }] } }, 'a tab is text')
})

t.test('the header: date and amount required, no unknown or repeated column; nothing or a header alone refused', async (t) => {
  t.match(csv('amount,reference\n1,x\n'), refused('/header', 'missing date'))
  t.match(csv('date,reference\n2026-03-02,x\n'), refused('/header', 'missing amount'))
  t.match(csv('date,amount,memo\n2026-03-02,1,x\n'), refused('/header', 'unknown column memo'))
  t.match(csv('date,amount,Date\n2026-03-02,1,2026-03-03\n'), refused('/header', 'repeated column'))
  t.match(csv(''), refused('/header', 'missing header'))
  t.match(csv('\n\n'), refused('/header', 'missing header'), 'blank lines only')
  t.match(csv('date,amount\n'), refused('/lines', 'no rows'))
  t.match(csv('date,amount\n\n\n'), refused('/lines', 'no rows'), 'a header and blank lines')
})

t.test('amounts: integers in minor units up to 2^53 - 1, nothing else', async (t) => {
  t.match(csv(`date,amount\n2026-03-02,${Number.MAX_SAFE_INTEGER}\n2026-03-02,-${Number.MAX_SAFE_INTEGER}\n`), { ok: true, value: { lines: [{ amount: Number.MAX_SAFE_INTEGER }, { amount: -Number.MAX_SAFE_INTEGER }] } })
  for (const bad of ['9007199254740992', '12345678901234567', '1.5', '1,000', '1e3', '', 'ten', '0x10', '--1']) {
    t.match(csv(`date,amount\n2026-03-02,"${bad}"\n`), refused('/lines/0/amount', 'row 2: must be an integer in minor units'), JSON.stringify(bad))
  }
})

t.test('dates: a real YYYY-MM-DD day', async (t) => {
  t.match(csv('date,amount\n2028-02-29,1\n'), { ok: true, value: { lines: [{ date: '2028-02-29' }] } }, 'a leap day')
  for (const bad of ['2026-02-29', '2026-13-01', '2026-3-1', '01/03/2026', '2026-03-01T00:00:00Z', '']) {
    t.match(csv(`date,amount\n${bad},1\n`), refused('/lines/0/date', 'row 2: must be a real YYYY-MM-DD date'), JSON.stringify(bad))
  }
})

t.test('reference and description: at most 500 and 1,000 characters, no control character', async (t) => {
  const ok = csv(`reference,description,date,amount\n${'r'.repeat(500)},${'d'.repeat(1000)},2026-03-02,1\n`)
  t.match(ok, { ok: true, value: { lines: [{ reference: 'r'.repeat(500), description: 'd'.repeat(1000) }] } })
  t.match(csv(`reference,date,amount\n${'r'.repeat(501)},2026-03-02,1\n`), refused('/lines/0/reference', 'row 2: must be at most 500 characters'))
  t.match(csv(`description,date,amount\n${'d'.repeat(1001)},2026-03-02,1\n`), refused('/lines/0/description', 'row 2: must be at most 1000 characters'))
  t.match(csv('reference,date,amount\n"a\nb",2026-03-02,1\n'), refused('/lines/0/reference', /^row 2: must not contain control characters/), 'a line break, even quoted')
  t.match(csv('description,date,amount\nx\u001b[31m,2026-03-02,1\n'), refused('/lines/0/description', /control characters/), 'ESC')
  t.match(csv('description,date,amount\nx\u0085,2026-03-02,1\n'), refused('/lines/0/description', /control characters/), 'C1 NEL')
})

t.test('row numbers as a spreadsheet shows them: the header, blank rows and multi-line values counted', async (t) => {
  t.match(csv('date,amount\n2026-03-02,1\n\n\n2026-03-02,x\n'), refused('/lines/1/amount', 'row 5: must be an integer in minor units'), 'index 1, row 5')
  t.match(csv('description,date,amount\n"a\tb\tc",2026-03-02,1\n2026-03-02,2026-03-02,y\n'), refused('/lines/1/amount', 'row 3: must be an integer in minor units'))
  t.match(csv('date,amount\n"2026-03-02\n\n",1\n2026-03-02,x\n'), refused('/lines/1/amount', 'row 3: must be an integer in minor units'), 'a value over three lines is one row (trimmed: a real date)')
})

t.test('a row of the wrong width: the first missing column, or the last one when a value has no column', async (t) => {
  t.match(csv('date,amount,reference\n2026-03-02\n'), refused('/lines/0/amount', 'row 2: is missing (the row has 1 value, the header 3 columns)'))
  t.match(csv('date,amount,reference\n2026-03-02,1\n'), refused('/lines/0/reference', /is missing \(the row has 2 values/))
  t.match(csv('date,amount,description\n2026-03-02,1,Fee, monthly\n'), refused('/lines/0/description', /is followed by a value without a column \(the row has 4 values, the header 3 columns; quote/))
})

t.test('bytes that are not UTF-8: in the header, in a value (its column), past the last column (the last one)', async (t) => {
  const latin1 = (text: string) => parseStatementCsv(Buffer.from(text, 'latin1'))
  t.match(latin1('date,amount,r\xe9f\n2026-03-02,1,x\n'), refused('/header', 'row 1: is not valid UTF-8'))
  t.match(latin1('date,amount,Reference\n2026-03-02,1,ok\n2026-03-03,2,caf\xe9\n'), refused('/lines/1/reference', 'row 3: is not valid UTF-8'))
  t.match(latin1('date,amount\n\n2026-03-02,1,\xff\n'), refused('/lines/0/amount', 'row 3: is not valid UTF-8'), 'a value with no column: under the last one')
  t.match(parseStatementCsv(Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('date,amount\n2026-03-02,1\n'), 0xc3])), refused('/lines/1/date', 'row 3: is not valid UTF-8'), 'with a BOM, a cut sequence in a row of its own: its first column')
  t.match(latin1('date,amount\n"2026-03-02,\xff\n'), refused('/lines', 'is not valid UTF-8'), 'unparseable as well')
})

t.test('malformed CSV refused as a whole; at most 10,000 lines', async (t) => {
  t.match(csv('date,amount\n"2026-03-02,1\n'), refused('/lines', 'malformed CSV'), 'a quote never closed')
  t.match(csv(`date,amount,description\n2026-03-02,1,"${'d'.repeat(70 * 1024)}"\n`), refused('/lines', 'malformed CSV'), 'a record over 64 KiB')
  const rows = (count: number) => `date,amount\n${'2026-03-02,1\n'.repeat(count)}`
  t.equal((csv(rows(csvRowsMax)) as { value: { lines: unknown[] } }).value.lines.length, csvRowsMax, 'the most lines')
  t.match(csv(rows(csvRowsMax + 1)), refused('/lines', 'too many rows'), 'one more: refused, never cut')
  t.match(csv(rows(csvRowsMax + 50)), refused('/lines', 'too many rows'))
})
