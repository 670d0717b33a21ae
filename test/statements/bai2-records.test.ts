/**
 * BAI2 records (src/statements/bai2-records.ts): physical lines into records (blank and padded lines skipped,
 * blocked lines split at record codes after `/`, wrapped text joined to the open record, anything else refused by
 * line); fields; the width of each funds type; counts, amounts and dates; and the 03 record's summaries with its
 * control total.
 */
import t from 'tap'
import { accountSummaryOf, amountField, countOf, dateField, fieldsOf, fundsTypeWidth, recordsOf, type Bai2Record } from '../../src/statements/bai2-records.ts'
import { FileProblem } from '../../src/statements/types.ts'

function problem(run: () => unknown): FileProblem {
  try {
    run()
  } catch (error) {
    if (error instanceof FileProblem) return error
    throw error
  }
  throw new Error('no problem')
}

const record = (body: string, code = '16', line = 5): Bai2Record => ({ code, body, line })

t.test('one record a line; blank lines and trailing padding are not records; CRLF or LF', async (t) => {
  const records = recordsOf('01,BANK,CUST,260310,0800,1,,,2/\r\n\r\n02,CUST,BANK,1,260310,,USD,2/     \n   \n99,0,1,3/')
  t.same(records, [
    { code: '01', body: 'BANK,CUST,260310,0800,1,,,2/', line: 1 },
    { code: '02', body: 'CUST,BANK,1,260310,,USD,2/', line: 3 },
    { code: '99', body: '0,1,3/', line: 5 },
  ])
})

t.test('a blocked line holds several records, each after a / and blanks', async (t) => {
  const records = recordsOf('01,B,C,260310,0800,1,80,,2/ 02,C,B,1,260310,,USD,2/   16,195,100,Z,REF,,text/')
  t.same(records.map((entry) => [entry.code, entry.line]), [['01', 1], ['02', 1], ['16', 1]])
  t.equal(records[2].body, '195,100,Z,REF,,text/')
})

t.test('a line without a code continues an open record (wrapped text); after a closed one it is refused', async (t) => {
  const records = recordsOf('16,195,100,Z,REF,,first part of a long\n   text wrapped by the bank/\n49,100,2/')
  t.equal(records.length, 2)
  t.equal(records[0].body, '195,100,Z,REF,,first part of a long text wrapped by the bank/')
  const refused = problem(() => recordsOf('16,195,100,Z,REF,,done/\nstray text'))
  t.equal(refused.path, 'line 2')
  t.match(refused.message, /not a BAI2 record: "stray text"/)
  t.equal(problem(() => recordsOf('hello')).path, 'line 1', 'a first line without a code')
})

t.test('fields: split on commas, the closing / removed, empty fields kept', async (t) => {
  t.same(fieldsOf(record('CUST,BANK,1,260310,,USD,2/')), ['CUST', 'BANK', '1', '260310', '', 'USD', '2'])
  t.same(fieldsOf(record('a,b')), ['a', 'b'], 'no / to remove')
})

t.test('funds types: how many fields each spends', async (t) => {
  const widths = (fields: string[], index = 0) => fundsTypeWidth(fields, index, record(''))
  for (const simple of ['', '0', '1', '2', 'Z']) t.equal(widths([simple]), 1, JSON.stringify(simple))
  t.equal(widths([]), 1, 'absent: none given')
  t.equal(widths(['V', '260311', '0900']), 3, 'value date and time')
  t.equal(widths(['S', '100', '200', '300']), 4, 'immediate, one-day, two-or-more-day amounts')
  t.equal(widths(['D', '2', '1', '500', '2', '700']), 6, 'a count, then days and amount per distribution')
  t.equal(widths(['x', 'D', '0'], 1), 2, 'D with no distribution spends itself and its count')
  t.match(problem(() => widths(['D', '3', '1', '500'])).message, /funds type D needs a distribution count the record holds, not "3"/)
  t.match(problem(() => widths(['D', 'two'])).message, /not "two"/)
  t.match(problem(() => widths(['Q'])).message, /unknown funds type "Q"/)
})

t.test('counts are 1 to 15 digits only; amounts are signed minor units; dates YYMMDD', async (t) => {
  t.equal(countOf('6'), 6)
  t.equal(countOf('000000000000042'), 42)
  for (const bad of [undefined, '', '6.0', '0x6', '6e0', '-1', '1'.repeat(16), ' 6']) t.equal(countOf(bad), null, JSON.stringify(bad))
  t.equal(amountField('123456', record(''), '16 amount'), 123456)
  t.equal(amountField('-500', record(''), '16 amount'), -500)
  t.equal(amountField('+7', record(''), '16 amount'), 7)
  t.match(problem(() => amountField('12.50', record('', '16', 9), '16 amount')), { path: 'line 9', message: /^16 amount: "12.50" is not an amount in minor units/ })
  t.match(problem(() => amountField('9'.repeat(17), record(''), '03 amount')).message, /beyond 2\^53-1/)
  t.equal(dateField('260310', record(''), 'as-of date'), '2026-03-10')
  t.equal(dateField('991231', record(''), 'as-of date'), '1999-12-31')
  t.match(problem(() => dateField('260230', record(''), 'as-of date')).message, /as-of date "260230" is not a YYMMDD date/)
  t.match(problem(() => dateField(undefined, record(''), 'as-of date')).message, /as-of date "" is not a YYMMDD date/)
})

t.test('03: summaries by type code, empty ones skipped, funds types stepped over, the control total summed', async (t) => {
  const fields = fieldsOf(record('0975312468,USD,010,500000,,,015,-250,4,Z,040,,,,072,1000,2,V,260311,0900,100,300,,S,1,2,3/', '03'))
  const summary = accountSummaryOf(fields, record('', '03'))
  t.equal(summary.account, '0975312468')
  t.equal(summary.currency, 'USD')
  t.same([...summary.amounts], [['010', 500000], ['015', -250], ['072', 1000], ['100', 300]], 'an empty amount (040) is absent')
  t.equal(summary.controlTotal, 500000n - 250n + 1000n + 300n)
  const blank = accountSummaryOf(fieldsOf(record('12345,,,,,,010,7,,/', '03')), record('', '03'))
  t.equal(blank.currency, null, 'no currency: the group\'s')
  t.same([...blank.amounts], [['010', 7]], 'a summary left wholly empty is skipped')
  t.match(problem(() => accountSummaryOf(['1', 'USD', '10', '5', '', ''], record('', '03', 4))), { path: 'line 4', message: /03 type code "10" is not 3 digits/ })
})
