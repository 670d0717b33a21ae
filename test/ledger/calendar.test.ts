/**
 * Tests for calendar.ts: dates, local midnights across DST (gaps and repeats at midnight, 30- and 45-minute
 * offsets), RFC 3339 parsing, and properties checked against temporal-polyfill's startOfDay.
 * Expected instants are literal ISO strings, worked out by hand from the tzdata rules and checked with zdump.
 */
import fc from 'fast-check'
import t, { type Test } from 'tap'
import { Temporal } from 'temporal-polyfill'
import {
  dayNumberOf,
  formatTimestamp,
  isValidTimeZone,
  localDateOf,
  localDayNumberOf,
  nextDate,
  parseDate,
  parseTimestampMs,
  periodBoundsMs,
  startOfLocalDayMs,
} from '../../src/ledger/calendar.ts'

const hourMs = 3_600_000
const dayMs = 86_400_000

/** An ISO instant written with 'Z' and milliseconds, read by Date.parse (independent of the code under test). */
function at(iso: string): number {
  const ms = Date.parse(iso)
  if (!Number.isSafeInteger(ms)) throw new Error(`bad expected instant ${iso}`)
  return ms
}

/** [date, zone, expected start of that local day]. */
function checkStarts(t: Test, cases: readonly (readonly [string, string, string])[]): void {
  for (const [date, timeZone, expected] of cases) {
    t.equal(formatTimestamp(startOfLocalDayMs(date, timeZone)), expected, `${date} ${timeZone}`)
  }
}

function dayLengthMs(date: string, timeZone: string): number {
  return startOfLocalDayMs(nextDate(date), timeZone) - startOfLocalDayMs(date, timeZone)
}

t.test('isValidTimeZone', async (t) => {
  for (const name of ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham', 'Australia/Lord_Howe', 'Etc/GMT+2', 'US/Eastern']) {
    t.ok(isValidTimeZone(name), name)
  }
  for (const name of ['', 'Mars/Base', '+02:00', '-05:00', '+0200', 'GMT+2', ' UTC', 'UTC ', 'Europe/Berlin\n', 'Z', 'Europe/'.padEnd(100, 'x')]) {
    t.notOk(isValidTimeZone(name), JSON.stringify(name))
  }
})

t.test('parseDate: strict YYYY-MM-DD, real dates only', async (t) => {
  t.same(parseDate('2026-03-08'), { year: 2026, month: 3, day: 8 })
  t.same(parseDate('2024-02-29'), { year: 2024, month: 2, day: 29 })
  t.same(parseDate('2000-02-29'), { year: 2000, month: 2, day: 29 })
  t.same(parseDate('0000-02-29'), { year: 0, month: 2, day: 29 }, 'year 0 is a leap year (divisible by 400)')
  t.same(parseDate('9999-12-31'), { year: 9999, month: 12, day: 31 })
  const invalid = ['2026-02-29', '1900-02-29', '2100-02-29', '2026-13-01', '2026-00-10', '2026-01-00', '2026-04-31', '2026-01-32',
    '2026-1-01', '2026-01-1', '26-01-01', '+2026-01-01', '12026-01-01', '2026-01-01T00:00:00Z', ' 2026-01-01', '2026-01-01 ',
    '2026-01-01\n', '2026/01/01', '20260101', '２０２６-01-01', '٢٠٢٦-01-01', '']
  for (const text of invalid) t.equal(parseDate(text), null, JSON.stringify(text))
})

t.test('nextDate: month ends, year ends, leap years', async (t) => {
  const cases = [['2026-03-08', '2026-03-09'], ['2026-04-30', '2026-05-01'], ['2026-12-31', '2027-01-01'], ['2026-02-28', '2026-03-01'],
    ['2024-02-28', '2024-02-29'], ['2024-02-29', '2024-03-01'], ['2000-02-28', '2000-02-29'], ['2100-02-28', '2100-03-01'],
    ['1969-12-31', '1970-01-01'], ['0000-02-28', '0000-02-29'], ['0099-12-31', '0100-01-01'], ['9999-12-30', '9999-12-31']]
  for (const [date, expected] of cases) t.equal(nextDate(date), expected, date)
  t.throws(() => nextDate('2026-02-30'), 'an invalid date is a programmer error')
})

t.test('Europe/Berlin: the 25-hour day of 2026-10-25 and the 23-hour day of 2026-03-29', async (t) => {
  checkStarts(t, [
    ['2026-10-24', 'Europe/Berlin', '2026-10-23T22:00:00.000Z'],
    ['2026-10-25', 'Europe/Berlin', '2026-10-24T22:00:00.000Z'],
    ['2026-10-26', 'Europe/Berlin', '2026-10-25T23:00:00.000Z'],
    ['2026-03-29', 'Europe/Berlin', '2026-03-28T23:00:00.000Z'],
    ['2026-03-30', 'Europe/Berlin', '2026-03-29T22:00:00.000Z'],
  ])
  t.equal(dayLengthMs('2026-10-25', 'Europe/Berlin'), 25 * hourMs)
  t.equal(dayLengthMs('2026-03-29', 'Europe/Berlin'), 23 * hourMs)
  t.same(periodBoundsMs('2026-10-25', '2026-10-25', 'Europe/Berlin'), { startMs: at('2026-10-24T22:00:00.000Z'), endMs: at('2026-10-25T23:00:00.000Z') })
  t.same(periodBoundsMs('2026-10-01', '2026-10-31', 'Europe/Berlin'), { startMs: at('2026-09-30T22:00:00.000Z'), endMs: at('2026-10-31T23:00:00.000Z') })
  t.same(periodBoundsMs('2026-10-24', '2026-10-26', 'Europe/Berlin'), { startMs: at('2026-10-23T22:00:00.000Z'), endMs: at('2026-10-26T23:00:00.000Z') })
  // The repeated hour 02:00-03:00 local (00:00Z-02:00Z) stays on the 25th.
  for (const iso of ['2026-10-25T00:30:00.000Z', '2026-10-25T01:30:00.000Z']) t.equal(localDateOf(at(iso), 'Europe/Berlin'), '2026-10-25', iso)
  t.equal(localDateOf(at('2026-10-25T22:59:59.999Z'), 'Europe/Berlin'), '2026-10-25')
  t.equal(localDateOf(at('2026-10-25T23:00:00.000Z'), 'Europe/Berlin'), '2026-10-26')
  t.equal(localDateOf(at('2026-10-24T21:59:59.999Z'), 'Europe/Berlin'), '2026-10-24')
  t.equal(localDateOf(at('2026-10-24T22:00:00.000Z'), 'Europe/Berlin'), '2026-10-25')
})

t.test('America/New_York: the 23-hour day of 2026-03-08 and the 25-hour day of 2026-11-01', async (t) => {
  checkStarts(t, [
    ['2026-03-07', 'America/New_York', '2026-03-07T05:00:00.000Z'],
    ['2026-03-08', 'America/New_York', '2026-03-08T05:00:00.000Z'],
    ['2026-03-09', 'America/New_York', '2026-03-09T04:00:00.000Z'],
    ['2026-11-01', 'America/New_York', '2026-11-01T04:00:00.000Z'],
    ['2026-11-02', 'America/New_York', '2026-11-02T05:00:00.000Z'],
  ])
  t.equal(dayLengthMs('2026-03-08', 'America/New_York'), 23 * hourMs)
  t.equal(dayLengthMs('2026-03-07', 'America/New_York'), 24 * hourMs)
  t.equal(dayLengthMs('2026-11-01', 'America/New_York'), 25 * hourMs)
  t.same(periodBoundsMs('2026-03-01', '2026-03-31', 'America/New_York'), { startMs: at('2026-03-01T05:00:00.000Z'), endMs: at('2026-04-01T04:00:00.000Z') })
  t.same(periodBoundsMs('2026-03-08', '2026-03-08', 'America/New_York'), { startMs: at('2026-03-08T05:00:00.000Z'), endMs: at('2026-03-09T04:00:00.000Z') })
  t.equal(localDateOf(at('2026-03-09T03:59:59.999Z'), 'America/New_York'), '2026-03-08')
  t.equal(localDateOf(at('2026-03-09T04:00:00.000Z'), 'America/New_York'), '2026-03-09')
})

t.test('midnight does not exist: the start is the end of the gap', async (t) => {
  checkStarts(t, [
    // Chile: 2026-09-06 24:00 -04 becomes 01:00 -03 (tzdata "Sep Sun>=2 4:00u").
    ['2026-09-05', 'America/Santiago', '2026-09-05T04:00:00.000Z'],
    ['2026-09-06', 'America/Santiago', '2026-09-06T04:00:00.000Z'],
    ['2026-09-07', 'America/Santiago', '2026-09-07T03:00:00.000Z'],
    // Cuba: 2026-03-08 00:00 CST becomes 01:00 CDT.
    ['2026-03-08', 'America/Havana', '2026-03-08T05:00:00.000Z'],
    // Lebanon: 2026-03-29 00:00 EET becomes 01:00 EEST.
    ['2026-03-29', 'Asia/Beirut', '2026-03-28T22:00:00.000Z'],
    ['2026-03-30', 'Asia/Beirut', '2026-03-29T21:00:00.000Z'],
  ])
  t.equal(dayLengthMs('2026-09-06', 'America/Santiago'), 23 * hourMs)
  t.equal(dayLengthMs('2026-03-29', 'Asia/Beirut'), 23 * hourMs)
  // The instant before the start is still the previous date; the start reads 01:00.
  t.equal(localDateOf(at('2026-09-06T03:59:59.999Z'), 'America/Santiago'), '2026-09-05')
  t.equal(localDateOf(at('2026-09-06T04:00:00.000Z'), 'America/Santiago'), '2026-09-06')
  t.equal(localDateOf(at('2026-03-08T04:59:59.999Z'), 'America/Havana'), '2026-03-07')
  t.equal(localDateOf(at('2026-03-28T21:59:59.999Z'), 'Asia/Beirut'), '2026-03-28')
  t.equal(localDateOf(at('2026-03-28T22:00:00.000Z'), 'Asia/Beirut'), '2026-03-29')
})

t.test('a date a zone skipped entirely starts where the next date starts', async (t) => {
  // Samoa moved across the date line: 2011-12-29 23:59:59 -10 was followed by 2011-12-31 00:00 +14.
  checkStarts(t, [
    ['2011-12-29', 'Pacific/Apia', '2011-12-29T10:00:00.000Z'],
    ['2011-12-30', 'Pacific/Apia', '2011-12-30T10:00:00.000Z'],
    ['2011-12-31', 'Pacific/Apia', '2011-12-30T10:00:00.000Z'],
  ])
  t.equal(dayLengthMs('2011-12-30', 'Pacific/Apia'), 0)
})

t.test('midnight happens twice: the earlier', async (t) => {
  // Cuba: 2026-11-01 01:00 CDT goes back to 00:00 CST, so 00:00 is both 04:00Z and 05:00Z.
  checkStarts(t, [
    ['2026-11-01', 'America/Havana', '2026-11-01T04:00:00.000Z'],
    ['2026-11-02', 'America/Havana', '2026-11-02T05:00:00.000Z'],
  ])
  t.equal(dayLengthMs('2026-11-01', 'America/Havana'), 25 * hourMs)
  t.equal(localDateOf(at('2026-11-01T03:59:59.999Z'), 'America/Havana'), '2026-10-31')
  t.equal(localDateOf(at('2026-11-01T04:30:00.000Z'), 'America/Havana'), '2026-11-01')
  t.equal(localDateOf(at('2026-11-01T05:30:00.000Z'), 'America/Havana'), '2026-11-01')
  // Chile and Lebanon repeat the last hour of Saturday instead: Sunday's midnight happens once.
  checkStarts(t, [
    ['2026-04-04', 'America/Santiago', '2026-04-04T03:00:00.000Z'],
    ['2026-04-05', 'America/Santiago', '2026-04-05T04:00:00.000Z'],
    ['2026-10-24', 'Asia/Beirut', '2026-10-23T21:00:00.000Z'],
    ['2026-10-25', 'Asia/Beirut', '2026-10-24T22:00:00.000Z'],
  ])
  t.equal(dayLengthMs('2026-04-04', 'America/Santiago'), 25 * hourMs)
  t.equal(dayLengthMs('2026-10-24', 'Asia/Beirut'), 25 * hourMs)
})

t.test('Asia/Kolkata (+05:30) and Pacific/Chatham (+12:45 / +13:45)', async (t) => {
  checkStarts(t, [
    ['2026-03-08', 'Asia/Kolkata', '2026-03-07T18:30:00.000Z'],
    ['2026-12-31', 'Asia/Kolkata', '2026-12-30T18:30:00.000Z'],
    ['2026-01-15', 'Pacific/Chatham', '2026-01-14T10:15:00.000Z'],
    ['2026-07-01', 'Pacific/Chatham', '2026-06-30T11:15:00.000Z'],
    // 2026-04-05 03:45 +13:45 goes back to 02:45 +12:45; 2026-09-27 02:45 +12:45 jumps to 03:45 +13:45.
    ['2026-04-05', 'Pacific/Chatham', '2026-04-04T10:15:00.000Z'],
    ['2026-04-06', 'Pacific/Chatham', '2026-04-05T11:15:00.000Z'],
    ['2026-09-27', 'Pacific/Chatham', '2026-09-26T11:15:00.000Z'],
    ['2026-09-28', 'Pacific/Chatham', '2026-09-27T10:15:00.000Z'],
  ])
  t.equal(dayLengthMs('2026-04-05', 'Pacific/Chatham'), 25 * hourMs)
  t.equal(dayLengthMs('2026-09-27', 'Pacific/Chatham'), 23 * hourMs)
  t.equal(localDateOf(at('2026-03-07T18:29:59.999Z'), 'Asia/Kolkata'), '2026-03-07')
  t.equal(localDateOf(at('2026-03-07T18:30:00.000Z'), 'Asia/Kolkata'), '2026-03-08')
  t.equal(localDateOf(at('2026-06-30T11:14:59.999Z'), 'Pacific/Chatham'), '2026-06-30')
  t.equal(localDateOf(at('2026-06-30T11:15:00.000Z'), 'Pacific/Chatham'), '2026-07-01')
})

t.test('Australia/Lord_Howe: a 30-minute DST shift', async (t) => {
  // 2026-04-05 02:00 +11 goes back to 01:30 +10:30; 2026-10-04 02:00 +10:30 jumps to 02:30 +11.
  checkStarts(t, [
    ['2026-04-05', 'Australia/Lord_Howe', '2026-04-04T13:00:00.000Z'],
    ['2026-04-06', 'Australia/Lord_Howe', '2026-04-05T13:30:00.000Z'],
    ['2026-10-04', 'Australia/Lord_Howe', '2026-10-03T13:30:00.000Z'],
    ['2026-10-05', 'Australia/Lord_Howe', '2026-10-04T13:00:00.000Z'],
  ])
  t.equal(dayLengthMs('2026-04-05', 'Australia/Lord_Howe'), 24.5 * hourMs)
  t.equal(dayLengthMs('2026-10-04', 'Australia/Lord_Howe'), 23.5 * hourMs)
})

t.test('Antarctica/Troll: a two-hour DST shift gives 22- and 26-hour days', async (t) => {
  checkStarts(t, [
    ['2026-03-29', 'Antarctica/Troll', '2026-03-29T00:00:00.000Z'],
    ['2026-03-30', 'Antarctica/Troll', '2026-03-29T22:00:00.000Z'],
  ])
  t.equal(dayLengthMs('2026-03-29', 'Antarctica/Troll'), 22 * hourMs)
  t.equal(dayLengthMs('2026-10-25', 'Antarctica/Troll'), 26 * hourMs)
})

t.test('year boundaries', async (t) => {
  checkStarts(t, [
    ['2027-01-01', 'UTC', '2027-01-01T00:00:00.000Z'],
    ['2027-01-01', 'Europe/Berlin', '2026-12-31T23:00:00.000Z'],
    ['2027-01-01', 'America/New_York', '2027-01-01T05:00:00.000Z'],
    ['2027-01-01', 'Pacific/Kiritimati', '2026-12-31T10:00:00.000Z'],
    ['2027-01-01', 'Pacific/Pago_Pago', '2027-01-01T11:00:00.000Z'],
  ])
  t.same(periodBoundsMs('2026-12-01', '2026-12-31', 'Europe/Berlin'), { startMs: at('2026-11-30T23:00:00.000Z'), endMs: at('2026-12-31T23:00:00.000Z') })
  t.same(periodBoundsMs('2026-12-31', '2027-01-01', 'UTC'), { startMs: at('2026-12-31T00:00:00.000Z'), endMs: at('2027-01-02T00:00:00.000Z') })
  const edges = [
    ['2026-12-31T23:59:59.999Z', 'UTC', '2026-12-31'], ['2027-01-01T00:00:00.000Z', 'UTC', '2027-01-01'],
    ['2027-01-01T04:59:59.999Z', 'America/New_York', '2026-12-31'], ['2027-01-01T05:00:00.000Z', 'America/New_York', '2027-01-01'],
    ['2026-12-31T09:59:59.999Z', 'Pacific/Kiritimati', '2026-12-31'], ['2026-12-31T10:00:00.000Z', 'Pacific/Kiritimati', '2027-01-01'],
    ['1969-12-31T23:59:59.999Z', 'UTC', '1969-12-31'], ['1970-01-01T00:00:00.000Z', 'Asia/Kolkata', '1970-01-01'],
  ]
  for (const [iso, timeZone, expected] of edges) t.equal(localDateOf(at(iso), timeZone), expected, `${iso} ${timeZone}`)
})

t.test('zone names in any letter case, more than the formatter cache holds', async (t) => {
  // Bit i of the index capitalises the i-th letter of 'europeberlin': 2^12 distinct spellings.
  const spell = (index: number): string =>
    [...'europeberlin'].map((letter, position) => ((index >> position) & 1 ? letter.toUpperCase() : letter)).join('')
  const names = Array.from({ length: 1100 }, (_, index) => `${spell(index).slice(0, 6)}/${spell(index).slice(6)}`)
  t.equal(new Set(names).size, names.length)
  for (const name of names) {
    if (localDateOf(at('2026-10-25T22:59:59.999Z'), name) !== '2026-10-25') t.fail(name)
  }
  t.equal(startOfLocalDayMs('2026-10-26', 'Europe/Berlin'), at('2026-10-25T23:00:00.000Z'), 'still right after evictions')
})

const propertyZones = ['UTC', 'Europe/Berlin', 'America/New_York', 'America/Santiago', 'America/Havana', 'Asia/Beirut', 'Asia/Kolkata',
  'Pacific/Chatham', 'Australia/Lord_Howe', 'Antarctica/Troll', 'America/St_Johns', 'Asia/Tehran', 'America/Asuncion',
  'America/Sao_Paulo', 'Africa/Cairo', 'Africa/Casablanca', 'Europe/Dublin', 'Asia/Gaza', 'Pacific/Auckland', 'Asia/Kathmandu']

/** Dates 1971-01-01 .. 2100-12-31. */
const dateArbitrary = fc.integer({ min: at('1971-01-01T00:00:00.000Z') / dayMs, max: at('2100-12-31T00:00:00.000Z') / dayMs })
  .map((days) => new Date(days * dayMs).toISOString().slice(0, 10))

t.test('property: a start maps back to its date, is the first instant of it, and days last 22..26 h', async (t) => {
  fc.assert(fc.property(dateArbitrary, fc.constantFrom(...propertyZones), (date, timeZone) => {
    const startMs = startOfLocalDayMs(date, timeZone)
    const nextStartMs = startOfLocalDayMs(nextDate(date), timeZone)
    return localDateOf(startMs, timeZone) === date
      && localDateOf(startMs - 1, timeZone) < date
      && nextStartMs > startMs
      && nextStartMs - startMs >= 22 * hourMs
      && nextStartMs - startMs <= 26 * hourMs
  }), { numRuns: 3000 })
  t.pass('held')
})

t.test('property: agrees with Temporal startOfDay (temporal-polyfill)', async (t) => {
  fc.assert(fc.property(dateArbitrary, fc.constantFrom(...propertyZones), (date, timeZone) => {
    const expectedMs = Temporal.PlainDate.from(date).toZonedDateTime({ timeZone }).epochMilliseconds
    return startOfLocalDayMs(date, timeZone) === expectedMs
  }), { numRuns: 2000 })
  t.pass('held')
})

t.test('parseTimestampMs: every RFC 3339 form', async (t) => {
  const accepted = [
    ['2026-11-22T10:00:00Z', '2026-11-22T10:00:00.000Z'],
    ['2026-11-22t10:00:00z', '2026-11-22T10:00:00.000Z'],
    ['2026-11-22T12:00:00+02:00', '2026-11-22T10:00:00.000Z'],
    ['2026-11-22T04:30:00-05:30', '2026-11-22T10:00:00.000Z'],
    ['2026-11-22T10:00:00+00:00', '2026-11-22T10:00:00.000Z'],
    ['2026-11-22T10:00:00-00:00', '2026-11-22T10:00:00.000Z'],
    ['2026-11-23T09:59:00+23:59', '2026-11-22T10:00:00.000Z'],
    ['2026-11-22T10:00:00.5Z', '2026-11-22T10:00:00.500Z'],
    ['2026-11-22T10:00:00.12Z', '2026-11-22T10:00:00.120Z'],
    ['2026-11-22T10:00:00.123Z', '2026-11-22T10:00:00.123Z'],
    ['2026-11-22T10:00:00.1239Z', '2026-11-22T10:00:00.123Z'],
    ['2026-11-22T10:00:00.999999999Z', '2026-11-22T10:00:00.999Z'],
    ['2026-11-22T10:00:00.0009999999999999999999Z', '2026-11-22T10:00:00.000Z'],
    ['2026-11-22T11:00:00.9999+01:00', '2026-11-22T10:00:00.999Z'],
    ['1969-12-31T23:59:59.9999Z', '1969-12-31T23:59:59.999Z'],
    ['2024-02-29T23:59:59Z', '2024-02-29T23:59:59.000Z'],
    ['2027-01-01T00:30:00+01:00', '2026-12-31T23:30:00.000Z'],
    ['0000-01-01T00:00:00Z', '0000-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
  ]
  for (const [text, expected] of accepted) t.equal(parseTimestampMs(text), at(expected), text)
})

t.test('parseTimestampMs: rejections', async (t) => {
  const rejected = ['', '2026-11-22', '2026-11-22T10:00:00', '2026-11-22T10:00Z', '2026-11-22 10:00:00Z', '2026-11-22_10:00:00Z',
    '2026-02-30T00:00:00Z', '2026-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '2026-11-22T24:00:00Z', '2026-11-22T10:60:00Z',
    '2026-11-22T10:00:60Z', '2026-11-22T10:00:00+0200', '2026-11-22T10:00:00+02', '2026-11-22T10:00:00+24:00',
    '2026-11-22T10:00:00+02:60', '2026-11-22T10:00:00.Z', '2026-11-22T10:00:00,5Z', ' 2026-11-22T10:00:00Z', '2026-11-22T10:00:00Z ',
    '2026-11-22T10:00:00Z\n', '20261122T100000Z', '+002026-11-22T10:00:00Z', '2026-11-22T10:00:00UTC', '2026-11-22T10:00:00 Z',
    '2026-1-22T10:00:00Z', '2026-11-22T1:00:00Z', `2026-11-22T10:00:00.${'1'.repeat(50)}Z`,
    '٢٠٢٦-11-22T10:00:00Z', '0000-01-01T00:00:00+01:00', '9999-12-31T23:59:59-01:00']
  for (const text of rejected) t.equal(parseTimestampMs(text), null, JSON.stringify(text))
})

t.test('formatTimestamp: UTC with milliseconds', async (t) => {
  t.equal(formatTimestamp(at('2026-11-22T10:00:00.000Z')), '2026-11-22T10:00:00.000Z')
  t.equal(formatTimestamp(0), '1970-01-01T00:00:00.000Z')
  t.equal(formatTimestamp(-1), '1969-12-31T23:59:59.999Z')
  t.equal(formatTimestamp(-62_167_219_200_000), '0000-01-01T00:00:00.000Z')
  t.equal(formatTimestamp(253_402_300_799_999), '9999-12-31T23:59:59.999Z')
  for (const bad of [1.5, Number.NaN, -62_167_219_200_001, 253_402_300_800_000]) t.throws(() => formatTimestamp(bad), String(bad))
})

const instantArbitrary = fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 })

t.test('property: formatTimestamp writes what toISOString writes (the civil-date arithmetic over years 0000..9999)', async (t) => {
  // Instants around a random one, days apart: month, year and leap-day edges come up among them.
  const nearby = fc.tuple(instantArbitrary, fc.array(fc.integer({ min: -3 * dayMs, max: 3 * dayMs }), { maxLength: 20 }))
  fc.assert(fc.property(nearby, ([base, steps]) => [base, ...steps.map((step) => base + step)]
    .filter((atMs) => atMs >= -62_167_219_200_000 && atMs <= 253_402_300_799_999)
    .every((atMs) => formatTimestamp(atMs) === new Date(atMs).toISOString())), { numRuns: 20_000 })
  t.pass('held')
})

t.test('property: formatTimestamp and parseTimestampMs round-trip, also through an offset', async (t) => {
  fc.assert(fc.property(instantArbitrary, fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }), (atMs, offsetMinutes) => {
    if (parseTimestampMs(formatTimestamp(atMs)) !== atMs) return false
    const wallMs = atMs + offsetMinutes * 60_000
    if (wallMs < -62_167_219_200_000 || wallMs > 253_402_300_799_999) return true
    const sign = offsetMinutes < 0 ? '-' : '+'
    const magnitude = Math.abs(offsetMinutes)
    const offset = `${sign}${String(Math.floor(magnitude / 60)).padStart(2, '0')}:${String(magnitude % 60).padStart(2, '0')}`
    return parseTimestampMs(new Date(wallMs).toISOString().replace('Z', offset)) === atMs
  }), { numRuns: 5000 })
  t.pass('held')
})

t.test('zones that Intl resolves to UTC take the arithmetic path, and it agrees with Intl and Temporal', async (t) => {
  const utcNames = ['UTC', 'utc', 'Etc/UTC', 'GMT', 'Etc/GMT', 'Zulu', 'Etc/Universal']
  fc.assert(fc.property(instantArbitrary, fc.constantFrom(...utcNames), (atMs, timeZone) => {
    const expected = Temporal.Instant.fromEpochMilliseconds(atMs).toZonedDateTimeISO('UTC').toPlainDate().toString()
    const local = localDateOf(atMs, timeZone)
    if (local !== expected) return false
    return startOfLocalDayMs(local, timeZone) === Date.parse(`${expected}T00:00:00Z`) || expected.startsWith('-') || expected.startsWith('+')
  }), { numRuns: 2_000 })
  t.pass('2,000 instants in seven spellings of UTC')
  // Not every zone with a zero offset is UTC: London keeps summer time, so it must still go through Intl.
  t.equal(localDateOf(Date.parse('2026-07-01T23:30:00Z'), 'Europe/London'), '2026-07-02')
  t.equal(localDateOf(Date.parse('2026-07-01T23:30:00Z'), 'Etc/UTC'), '2026-07-01')
})

t.test('day numbers: localDayNumberOf counts the day localDateOf names, and dayNumberOf agrees with Temporal', async (t) => {
  // Local dates of four-digit years: a day away from the ends, a zone's offset cannot reach year 0 or 10000.
  const instants = fc.integer({ min: Date.parse('0000-01-02T00:00:00Z'), max: Date.parse('9999-12-30T00:00:00Z') })
  fc.assert(fc.property(instants, fc.constantFrom(...propertyZones), (atMs, timeZone) => {
    const local = localDateOf(atMs, timeZone)
    const days = Temporal.PlainDate.from('1970-01-01').until(Temporal.PlainDate.from(local), { largestUnit: 'days' }).days
    return localDayNumberOf(atMs, timeZone) === dayNumberOf(local) && dayNumberOf(local) === days
  }), { numRuns: 2_000 })
  t.equal(dayNumberOf('1970-01-01'), 0)
  t.equal(dayNumberOf('1969-12-31'), -1)
  t.equal(dayNumberOf('0050-03-01') - dayNumberOf('0050-02-28'), 1, 'years below 100 are not read as 19xx')
})
