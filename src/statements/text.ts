/** @module Bytes to text and calendar dates as statement files write them. */

const utf8 = new TextDecoder('utf-8', { fatal: true })
const latin1 = new TextDecoder('latin1')

/**
 * UTF-8 when the bytes are UTF-8, else ISO 8859-1: MT940 and BAI2 files from European banks are often
 * Latin-1, and every byte sequence is valid Latin-1, so reading never fails here.
 */
export function decodeText(bytes: Uint8Array): string {
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    text = latin1.decode(bytes)
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/** YYYY-MM-DD when it names a real calendar date, else null. */
export function calendarDate(year: number, month: number, day: number): string | null {
  if (!Number.isInteger(year) || year < 1 || year > 9999) return null
  const probe = new Date(Date.UTC(year, month - 1, day))
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return null
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`
}

/** SWIFT and BAI2 YYMMDD: years 00–79 are 20YY, 80–99 19YY (the pivot most readers use). */
export function dateOfYymmdd(text: string): string | null {
  const match = /^(\d\d)(\d\d)(\d\d)$/.exec(text)
  if (match === null) return null
  const yy = Number(match[1])
  return calendarDate(yy < 80 ? 2000 + yy : 1900 + yy, Number(match[2]), Number(match[3]))
}

/** The date part of an ISO 8601 date or date-time (`2026-10-31`, `2026-10-31T23:59:59+01:00`), as written. */
export function dateOfIso(text: string): string | null {
  const match = /^(\d{4})-(\d\d)-(\d\d)(?:T.*)?$/.exec(text)
  if (match === null) return null
  return calendarDate(Number(match[1]), Number(match[2]), Number(match[3]))
}

export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number)
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10)
}

/** A value quoted for an error message, cut to 40 characters: a file may hold megabytes in one field. */
export function quoted(value: string | null | undefined): string {
  const text = value ?? ''
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)
}
