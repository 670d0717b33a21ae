/**
 * src/statements/text.ts on its own: bytes to text (UTF-8 when they are, else Windows-1252, a byte-order mark
 * dropped; test/statements/text-decoding.test.ts checks the Windows-1252 table itself), calendar dates (real
 * dates only, years 1 to 9999, leap years, the YYMMDD pivot at 80, ISO dates with or without a time), days
 * added across months, years and leap days, and values quoted for messages, cut at 40 characters.
 */
import t from 'tap'
import { addDays, calendarDate, dateOfIso, dateOfYymmdd, decodeText, decodeWindows1252, quoted } from '../../src/statements/text.ts'

t.test('decodeText: UTF-8 when the bytes are, else Windows-1252; a byte-order mark dropped', async (t) => {
  t.equal(decodeText(Buffer.from('Grüße €', 'utf8')), 'Grüße €')
  t.equal(decodeText(Buffer.from([0x47, 0x72, 0xfc, 0xdf, 0x65, 0x20, 0x80])), 'Grüße €', 'not UTF-8: Windows-1252')
  t.equal(decodeText(Buffer.from([0xef, 0xbb, 0xbf, 0x3a, 0x32, 0x30])), ':20', 'the UTF-8 byte-order mark is not text')
  t.equal(decodeText(Buffer.from([0xef, 0xbb, 0xbf, 0x80])), 'ï»¿€', 'a file that is not UTF-8 after all: its mark is three Windows-1252 characters')
  t.equal(decodeText(new Uint8Array(0)), '')
  t.equal(decodeText(Buffer.from([0xc3])), 'Ã', 'a UTF-8 sequence cut short: not UTF-8')
  t.equal(decodeWindows1252(Buffer.from([0x9f, 0x81])), 'Ÿ\u0081')
})

t.test('calendarDate: a real date written YYYY-MM-DD, else null', async (t) => {
  t.equal(calendarDate(2026, 11, 2), '2026-11-02')
  t.equal(calendarDate(2024, 2, 29), '2024-02-29', 'a leap day')
  t.equal(calendarDate(2026, 2, 29), null, 'no leap day in 2026')
  t.equal(calendarDate(1900, 2, 29), null, '1900 is no leap year')
  t.equal(calendarDate(2000, 2, 29), '2000-02-29', '2000 is')
  t.equal(calendarDate(2026, 4, 31), null)
  t.equal(calendarDate(2026, 13, 1), null)
  t.equal(calendarDate(2026, 0, 1), null)
  t.equal(calendarDate(2026, 1, 0), null)
  t.equal(calendarDate(2026, 12, 31), '2026-12-31')
  t.equal(calendarDate(9999, 12, 31), '9999-12-31', 'the last year')
  t.equal(calendarDate(10000, 1, 1), null)
  t.equal(calendarDate(1, 1, 1), '0001-01-01', 'the first year')
  t.equal(calendarDate(0, 1, 1), null)
  t.equal(calendarDate(50, 3, 1), '0050-03-01', 'a year below 100 is that year, not 1950')
  t.equal(calendarDate(99, 12, 31), '0099-12-31')
  t.equal(calendarDate(2026.5, 1, 1), null, 'no fractions')
  t.equal(calendarDate(2026, 1.5, 1), null)
  t.equal(calendarDate(Number.NaN, 1, 1), null)
})

t.test('dateOfYymmdd: 00–79 are 20YY, 80–99 19YY', async (t) => {
  t.equal(dateOfYymmdd('261102'), '2026-11-02')
  t.equal(dateOfYymmdd('000101'), '2000-01-01')
  t.equal(dateOfYymmdd('791231'), '2079-12-31', 'the last year before the pivot')
  t.equal(dateOfYymmdd('800101'), '1980-01-01', 'the pivot')
  t.equal(dateOfYymmdd('991231'), '1999-12-31')
  t.equal(dateOfYymmdd('240229'), '2024-02-29')
  t.equal(dateOfYymmdd('250229'), null)
  t.equal(dateOfYymmdd('261301'), null)
  for (const bad of ['', '26110', '2611022', '26-1-2', 'abcdef', ' 61102', '٢٦١١٠٢']) t.equal(dateOfYymmdd(bad), null, JSON.stringify(bad))
})

t.test('dateOfIso: the date part as written, with or without a time', async (t) => {
  t.equal(dateOfIso('2026-10-31'), '2026-10-31')
  t.equal(dateOfIso('2026-10-31T23:59:59+01:00'), '2026-10-31', 'the date as written, not moved to UTC')
  t.equal(dateOfIso('2026-10-31T00:30:00Z'), '2026-10-31')
  t.equal(dateOfIso('2026-02-30'), null)
  t.equal(dateOfIso('0050-03-01'), '0050-03-01')
  for (const bad of ['', '2026-1-31', '26-10-31', '2026-10-31 12:00', '2026-10-31Z', '20261031', ' 2026-10-31']) t.equal(dateOfIso(bad), null, JSON.stringify(bad))
})

t.test('addDays: across months, years and leap days, either way', async (t) => {
  t.equal(addDays('2026-11-30', 1), '2026-12-01')
  t.equal(addDays('2026-12-31', 1), '2027-01-01')
  t.equal(addDays('2024-02-28', 1), '2024-02-29')
  t.equal(addDays('2026-02-28', 1), '2026-03-01')
  t.equal(addDays('2026-03-01', -1), '2026-02-28')
  t.equal(addDays('2026-11-02', 0), '2026-11-02')
  t.equal(addDays('2026-01-01', 365), '2027-01-01')
  t.equal(addDays('2026-03-29', 1), '2026-03-30', 'no time zone: a DST change is no day shorter')
  t.equal(addDays('0050-03-01', 1), '0050-03-02', 'a year below 100 stays that year')
  t.equal(addDays('0099-12-31', 1), '0100-01-01')
})

t.test('quoted: JSON text, cut to 40 characters', async (t) => {
  t.equal(quoted('abc'), '"abc"')
  t.equal(quoted(''), '""')
  t.equal(quoted(null), '""')
  t.equal(quoted(undefined), '""')
  t.equal(quoted('a"b\\c\n'), '"a\\"b\\\\c\\n"', 'escaped as JSON')
  t.equal(quoted('x'.repeat(40)), `"${'x'.repeat(40)}"`, '40 characters: whole')
  t.equal(quoted('x'.repeat(41)), `"${'x'.repeat(40)}…"`, '41: cut, with an ellipsis')
  t.equal(quoted('y'.repeat(5_000_000)).length, 43, 'megabytes in a field: a short message')
})
