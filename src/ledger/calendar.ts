/** @module Calendar dates, RFC 3339 timestamps and local midnight in an IANA zone, through Intl (DST-correct). */

import assert from 'node:assert/strict'

export interface CalendarDate {
  readonly year: number
  readonly month: number
  readonly day: number
}

const dayMs = 86_400_000

export function isValidTimeZone(name: string): boolean {
  if (name === '' || name.length > 64 || /^[+-]/.test(name)) return false
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name })
    return true
  } catch {
    return false
  }
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate()
}

export function parseDate(text: string): CalendarDate | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (match === null) return null
  const year = Number(match[1])
  const month = Number(match[2])
  const day = Number(match[3])
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null
  return { year, month, day }
}

function formatDate(date: CalendarDate): string {
  return `${String(date.year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`
}

function utcMidnightMs(date: CalendarDate): number {
  const d = new Date(Date.UTC(2000, date.month - 1, date.day))
  d.setUTCFullYear(date.year)
  return d.getTime()
}

export function nextDate(date: string): string {
  const parsed = parseDate(date)
  assert.ok(parsed !== null, `not a date: ${date}`)
  const next = new Date(utcMidnightMs(parsed) + dayMs)
  return formatDate({ year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate() })
}

/** Formatters are costly to build; one per zone is reused (a cache of immutable objects, bounded by the zone list). */
const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', era: 'short' })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

/** The zone's wall-clock reading at an instant, as if it were UTC, in ms. */
function wallClockMs(atMs: number, timeZone: string): number {
  const parts: Record<string, string> = {}
  for (const part of formatterOf(timeZone).formatToParts(new Date(atMs))) parts[part.type] = part.value
  let year = Number(parts.year)
  if (parts.era === 'BC' || parts.era === 'B') year = 1 - year
  const d = new Date(Date.UTC(2000, Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second)))
  d.setUTCFullYear(year)
  return d.getTime() + (atMs - Math.floor(atMs / 1000) * 1000)
}

function offsetMs(atMs: number, timeZone: string): number {
  return wallClockMs(atMs, timeZone) - atMs
}

export function localDateOf(atMs: number, timeZone: string): string {
  const wall = new Date(wallClockMs(atMs, timeZone))
  return formatDate({ year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() })
}

/**
 * 00:00 local time on a date, as UTC ms. When that midnight happens twice, the earlier; when it does
 * not exist (a DST gap at midnight), the first instant after the gap, as Temporal's 'compatible'.
 */
export function startOfLocalDayMs(date: string, timeZone: string): number {
  const parsed = parseDate(date)
  assert.ok(parsed !== null, `not a date: ${date}`)
  const wall = utcMidnightMs(parsed)
  // Candidates from the offsets around that wall time; keep the earliest that reads as local midnight.
  const candidates = [offsetMs(wall - dayMs, timeZone), offsetMs(wall, timeZone), offsetMs(wall + dayMs, timeZone)].map((offset) => wall - offset)
  const exact = candidates.filter((atMs) => wallClockMs(atMs, timeZone) === wall).sort((a, b) => a - b)
  if (exact.length > 0) return exact[0]
  // Midnight falls in a gap: the first instant whose local date is this date.
  let low = Math.min(...candidates) - dayMs
  let high = Math.max(...candidates) + dayMs
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2)
    if (wallClockMs(middle, timeZone) >= wall) high = middle
    else low = middle
  }
  return high
}

export function periodBoundsMs(from: string, to: string, timeZone: string): { startMs: number; endMs: number } {
  return { startMs: startOfLocalDayMs(from, timeZone), endMs: startOfLocalDayMs(nextDate(to), timeZone) }
}

const timestampPattern = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/

/** Strict RFC 3339; fractions beyond milliseconds are truncated toward the earlier millisecond. */
export function parseTimestampMs(text: string): number | null {
  const match = timestampPattern.exec(text)
  if (match === null) return null
  const date = parseDate(`${match[1]}-${match[2]}-${match[3]}`)
  if (date === null) return null
  const [hour, minute, second] = [Number(match[4]), Number(match[5]), Number(match[6])]
  if (hour > 23 || minute > 59 || second > 59) return null
  const millisecond = match[7] === undefined ? 0 : Number(match[7].slice(0, 3).padEnd(3, '0'))
  let offsetMinutes = 0
  if (match[8] === undefined) {
    const [offsetHour, offsetMinute] = [Number(match[10]), Number(match[11])]
    if (offsetHour > 23 || offsetMinute > 59) return null
    offsetMinutes = (match[9] === '-' ? -1 : 1) * (offsetHour * 60 + offsetMinute)
  }
  const atMs = utcMidnightMs(date) + ((hour * 60 + minute) * 60 + second) * 1000 + millisecond - offsetMinutes * 60_000
  return Number.isSafeInteger(atMs) ? atMs : null
}

export function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString()
}
