/** @module Calendar dates, RFC 3339 timestamps and local midnight in IANA time zones, through Intl.DateTimeFormat (DST-correct, no offset tables). */

import assert from 'node:assert/strict'

export interface CalendarDate {
  readonly year: number
  readonly month: number
  readonly day: number
}

const secondMs = 1000
const minuteMs = 60_000
const hourMs = 3_600_000
/** A UTC day. Only ever added to UTC readings: a local day can be 23, 24.5 or 25 hours long. */
const dayMs = 86_400_000
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the instants RFC 3339 can write (four-digit years). */
const timestampMsMin = -62_167_219_200_000
const timestampMsMax = 253_402_300_799_999
/** Bounds the work a hostile timestamp can cause; 64 characters leave room for 39 fraction digits. */
const timestampCharsMax = 64
/** IANA names are at most 30 characters today; anything far longer is not a zone. */
const timeZoneCharsMax = 64
const daysInMonthCommon = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/**
 * True for a zone name Intl accepts ('UTC', 'Europe/Berlin', aliases like 'US/Eastern', and any letter
 * case, as Intl matches names case-insensitively). Offsets such as '+02:00' are refused even where the
 * runtime accepts them (newer V8 does): a workspace zone must follow DST, a fixed offset cannot.
 */
export function isValidTimeZone(name: string): boolean {
  if (name.length === 0 || name.length > timeZoneCharsMax || /^[+-]/.test(name)) return false
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name })
    return true
  } catch {
    return false
  }
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
}

function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : daysInMonthCommon[month - 1]
}

/** Strict `YYYY-MM-DD` naming a real proleptic Gregorian date, else null. */
export function parseDate(text: string): CalendarDate | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (match === null) return null
  const year = Number(match[1])
  const month = Number(match[2])
  const day = Number(match[3])
  if (month < 1 || month > 12) return null
  if (day < 1 || day > daysInMonth(year, month)) return null
  return { year, month, day }
}

function formatDate(date: CalendarDate): string {
  const year = String(date.year).padStart(4, '0')
  const month = String(date.month).padStart(2, '0')
  const day = String(date.day).padStart(2, '0')
  return `${year}-${month}-${day}`
}

/** UTC ms of 00:00Z on a date. setUTCFullYear, unlike Date.UTC, does not map years 0..99 to 1900..1999. */
function utcMidnightMs(date: CalendarDate): number {
  return new Date(0).setUTCFullYear(date.year, date.month - 1, date.day)
}

/** Days in a 400-year Gregorian cycle, and from 0000-03-01 to 1970-01-01. */
const cycleDays = 146_097
const daysFrom0000March1To1970 = 719_468

/**
 * The proleptic Gregorian date of a day counted from 1970-01-01, by arithmetic alone: years counted from
 * March, so the leap day ends its year (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
 */
function civilDateOfDay(day: number): CalendarDate {
  const shifted = day + daysFrom0000March1To1970
  const cycle = Math.floor(shifted / cycleDays)
  const dayOfCycle = shifted - cycle * cycleDays
  const yearOfCycle = Math.floor((dayOfCycle - Math.floor(dayOfCycle / 1460) + Math.floor(dayOfCycle / 36_524) - Math.floor(dayOfCycle / (cycleDays - 1))) / 365)
  const dayOfYear = dayOfCycle - (365 * yearOfCycle + Math.floor(yearOfCycle / 4) - Math.floor(yearOfCycle / 100))
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153)
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
  return { year: yearOfCycle + cycle * 400 + (month <= 2 ? 1 : 0), month, day: dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1 }
}

function utcDateOf(atMs: number): CalendarDate {
  return civilDateOfDay(Math.floor(atMs / dayMs))
}

function parseDateOrCrash(date: string): CalendarDate {
  const parsed = parseDate(date)
  if (parsed === null) assert.fail(`not a YYYY-MM-DD date: ${date}`)
  return parsed
}

/** The calendar day after `date` (valid `YYYY-MM-DD`). */
export function nextDate(date: string): string {
  // Stepping a UTC reading by 24 h is exact: UTC has no DST.
  return formatDate(utcDateOf(utcMidnightMs(parseDateOrCrash(date)) + dayMs))
}

/** The calendar day before `date` (valid `YYYY-MM-DD`). */
export function previousDate(date: string): string {
  return formatDate(utcDateOf(utcMidnightMs(parseDateOrCrash(date)) - dayMs))
}

/**
 * Building a formatter costs far more than using one, and startOfLocalDayMs formats up to six times
 * per call, so one immutable formatter per zone name is kept. Bounded because Intl accepts any letter
 * case, so the names that reach it are unbounded; the oldest name is forgotten first.
 */
const formatterZonesMax = 1024
const formatters = new Map<string, Intl.DateTimeFormat>()

/**
 * Zone names that Intl resolves to UTC itself (UTC, utc, Etc/UTC, GMT, Zulu, …): their wall clock is
 * the instant, so wallClockMs needs no formatting at all. The default workspace zone is UTC, and a
 * match's date check or a window's bounds then cost arithmetic only. Same bound as the formatters.
 */
const utcZones = new Map<string, boolean>()

function isUtcZone(timeZone: string): boolean {
  const cached = utcZones.get(timeZone)
  if (cached !== undefined) return cached
  const utc = formatterOf(timeZone).resolvedOptions().timeZone === 'UTC'
  if (utcZones.size >= formatterZonesMax) utcZones.delete(utcZones.keys().next().value as string)
  utcZones.set(timeZone, utc)
  return utc
}

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  const cached = formatters.get(timeZone)
  if (cached !== undefined) return cached
  // hourCycle 'h23', not hour12: false: the latter has printed midnight as "24" in some V8 versions.
  // era, because 'numeric' years count 1 BC as year 1 (era BC), not as year 0.
  const formatter = new Intl.DateTimeFormat('en-US', {
    timeZone, calendar: 'gregory', numberingSystem: 'latn', hourCycle: 'h23', era: 'short',
    year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
  })
  if (formatters.size >= formatterZonesMax) formatters.delete(formatters.keys().next().value as string)
  formatters.set(timeZone, formatter)
  return formatter
}

/** The zone's wall-clock reading at an instant, written as if it were a UTC instant, in ms. */
function wallClockMs(atMs: number, timeZone: string): number {
  if (isUtcZone(timeZone)) return atMs
  let [era, year, month, day, hour, minute, second] = ['', 0, 0, 0, 0, 0, 0]
  for (const part of formatterOf(timeZone).formatToParts(atMs)) {
    if (part.type === 'era') era = part.value
    else if (part.type === 'year') year = Number(part.value)
    else if (part.type === 'month') month = Number(part.value)
    else if (part.type === 'day') day = Number(part.value)
    else if (part.type === 'hour') hour = Number(part.value)
    else if (part.type === 'minute') minute = Number(part.value)
    else if (part.type === 'second') second = Number(part.value)
  }
  if (era !== 'AD' && era !== 'BC') assert.fail(`unexpected era ${era}`)
  if (!(hour >= 0 && hour <= 23)) assert.fail(`unexpected hour ${hour}`)
  const midnightMs = utcMidnightMs({ year: era === 'BC' ? 1 - year : year, month, day })
  // Intl prints whole seconds; the milliseconds carry over unchanged (no zone offset has a fraction of a second).
  const millisecond = ((atMs % secondMs) + secondMs) % secondMs
  return midnightMs + hour * hourMs + minute * minuteMs + second * secondMs + millisecond
}

/** `YYYY-MM-DD` of the instant in the zone. */
export function localDateOf(atMs: number, timeZone: string): string {
  return formatDate(utcDateOf(wallClockMs(atMs, timeZone)))
}

/** Days from 1970-01-01 to the instant's local date in the zone: the day localDateOf names, as a number, so dates subtract. */
export function localDayNumberOf(atMs: number, timeZone: string): number {
  return Math.floor(wallClockMs(atMs, timeZone) / dayMs)
}

/** Days from 1970-01-01 to a valid `YYYY-MM-DD` date (negative before it). */
export function dayNumberOf(date: string): number {
  return Math.floor(utcMidnightMs(parseDateOrCrash(date)) / dayMs)
}

/**
 * UTC ms of 00:00 local time on `date` in `timeZone`. When 00:00 happens twice (a fall-back at midnight),
 * the earlier. When it does not happen (a spring-forward gap over midnight), the first instant of that
 * local date, which is the end of the gap: Temporal's startOfDay, and its 'compatible' choice when the
 * gap starts at midnight. When a zone skipped the whole date (Pacific/Apia, 2011-12-30), the first
 * instant of the next date.
 */
export function startOfLocalDayMs(date: string, timeZone: string): number {
  const wallMs = utcMidnightMs(parseDateOrCrash(date))
  // A local midnight lies within ±16 h of the same reading in UTC, so unless a zone changed offset twice
  // within a day, the offsets in force a day before, at, and a day after that reading include the one in
  // force at each local midnight of the date (Temporal probes the same way). The property test checks this
  // against temporal-polyfill.
  let earliestMs = Number.POSITIVE_INFINITY
  for (const probeMs of [wallMs - dayMs, wallMs, wallMs + dayMs]) {
    const candidateMs = wallMs - (wallClockMs(probeMs, timeZone) - probeMs)
    if (candidateMs < earliestMs && wallClockMs(candidateMs, timeZone) === wallMs) earliestMs = candidateMs
  }
  if (earliestMs !== Number.POSITIVE_INFINITY) return earliestMs
  return firstInstantReadingAtLeastMs(wallMs, timeZone)
}

/** In a gap: bisect to the transition, the first instant whose local reading is at or after `wallMs`. */
function firstInstantReadingAtLeastMs(wallMs: number, timeZone: string): number {
  // Every UTC offset tzdata has known is under 16 h, so a day either side brackets the reading.
  let beforeMs = wallMs - dayMs
  let atOrAfterMs = wallMs + dayMs
  assert.ok(wallClockMs(beforeMs, timeZone) < wallMs)
  assert.ok(wallClockMs(atOrAfterMs, timeZone) >= wallMs)
  // 2 days of ms halve to 1 ms in 28 steps.
  while (atOrAfterMs - beforeMs > 1) {
    const middleMs = Math.floor((beforeMs + atOrAfterMs) / 2)
    if (wallClockMs(middleMs, timeZone) >= wallMs) atOrAfterMs = middleMs
    else beforeMs = middleMs
  }
  return atOrAfterMs
}

/** A period of whole local days: from `from` at 00:00 to the day after `to` at 00:00 (exclusive), DST-correct. */
export function periodBoundsMs(from: string, to: string, timeZone: string): { startMs: number; endMs: number } {
  return { startMs: startOfLocalDayMs(from, timeZone), endMs: startOfLocalDayMs(nextDate(to), timeZone) }
}

const timestampPattern = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/

/**
 * Strict RFC 3339 date-time (section 5.6) to UTC ms, else null. Any offset ('Z', 'z', '+02:00',
 * '-00:00'), 'T' or 't'. Fraction digits past the millisecond are dropped, which rounds toward the
 * earlier millisecond (the fraction always counts forward, also before 1970). Refused: a leap second
 * (:60; we cannot place it), hour 24, dates that do not exist, and instants outside 0000..9999 in UTC
 * (e.g. 0000-01-01T00:00:00+01:00), since those could not be written back in this format.
 */
export function parseTimestampMs(text: string): number | null {
  if (text.length > timestampCharsMax) return null
  const match = timestampPattern.exec(text)
  if (match === null) return null
  const date = parseDate(`${match[1]}-${match[2]}-${match[3]}`)
  if (date === null) return null
  const [hour, minute, second] = [Number(match[4]), Number(match[5]), Number(match[6])]
  if (hour > 23 || minute > 59 || second > 59) return null
  const millisecond = match[7] === undefined ? 0 : Number(match[7].slice(0, 3).padEnd(3, '0'))
  let offsetMs = 0
  if (match[8] !== undefined) {
    const [offsetHour, offsetMinute] = [Number(match[9]), Number(match[10])]
    if (offsetHour > 23 || offsetMinute > 59) return null
    offsetMs = (match[8] === '-' ? -1 : 1) * (offsetHour * hourMs + offsetMinute * minuteMs)
  }
  const wallMs = utcMidnightMs(date) + hour * hourMs + minute * minuteMs + second * secondMs + millisecond
  const atMs = wallMs - offsetMs
  if (atMs < timestampMsMin || atMs > timestampMsMax) return null
  assert.ok(Number.isSafeInteger(atMs))
  return atMs
}

const twoDigits = Array.from({ length: 100 }, (_, value) => String(value).padStart(2, '0'))
const threeDigits = Array.from({ length: 1000 }, (_, value) => String(value).padStart(3, '0'))
/**
 * UTC with milliseconds, `2026-11-22T10:00:00.000Z`; for instants parseTimestampMs can return or the clock gives.
 * The same text as `new Date(atMs).toISOString()` (a property test compares them) at a fraction of its cost
 * (~1 µs): every entry an answer shows, and every entry replayed at start-up, formats two of these.
 */
export function formatTimestamp(atMs: number): string {
  // Messages are built only on failure: a template literal argument would format its number on every call.
  if (!Number.isSafeInteger(atMs)) assert.fail(`not an integer ms: ${atMs}`)
  if (atMs < timestampMsMin || atMs > timestampMsMax) assert.fail(`outside years 0000..9999: ${atMs}`)
  // Exact: |atMs| < 2^53, and the quotient is never within rounding distance of the next integer.
  const day = Math.floor(atMs / dayMs)
  let msOfDay = atMs - day * dayMs
  const date = civilDateOfDay(day)
  const hour = Math.floor(msOfDay / hourMs)
  msOfDay -= hour * hourMs
  const minute = Math.floor(msOfDay / minuteMs)
  msOfDay -= minute * minuteMs
  const second = Math.floor(msOfDay / secondMs)
  return `${twoDigits[Math.floor(date.year / 100)]}${twoDigits[date.year % 100]}-${twoDigits[date.month]}-${twoDigits[date.day]}T${twoDigits[hour]}:${twoDigits[minute]}:${twoDigits[second]}.${threeDigits[msOfDay - second * secondMs]}Z`
}
