/** @module Bytes to text and calendar dates as statement files write them. */

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Windows-1252's characters for the bytes 0x80–0x9F (the WHATWG Encoding Standard's index); the five bytes it
 * leaves undefined stay the C1 control characters they are in ISO 8859-1 (and are then refused as such).
 */
const windows1252High = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f'
  + '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178'

/**
 * Windows-1252 written out, not `new TextDecoder('latin1')`: that label decodes ISO 8859-1 on Node 20 and
 * Windows-1252 on Node 22, so one file would read differently by the node that serves it. Windows-1252 is
 * what "Latin-1" bank files are in practice (the euro sign at 0x80) and what browsers read for that label.
 */
export function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
    .replace(/[\u0080-\u009f]/g, (character) => windows1252High[character.charCodeAt(0) - 0x80])
}

/**
 * UTF-8 when the bytes are UTF-8, else Windows-1252: MT940 and BAI2 files from European banks are often
 * "Latin-1", and every byte sequence decodes, so reading never fails here.
 */
export function decodeText(bytes: Uint8Array): string {
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    text = decodeWindows1252(bytes)
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/**
 * The UTC midnight of a day as a Date. setUTCFullYear, not Date.UTC: Date.UTC reads a year 0–99 as 1900–1999, so
 * 0050-03-01 would be refused as no date and 0050-03-01 plus a day would be 1950-03-02.
 */
function utcDay(year: number, month: number, day: number): Date {
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  return date
}

/** YYYY-MM-DD when it names a real calendar date, else null. */
export function calendarDate(year: number, month: number, day: number): string | null {
  if (!Number.isInteger(year) || year < 1 || year > 9999) return null
  const probe = utcDay(year, month, day)
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
  return utcDay(year, month, day + days).toISOString().slice(0, 10)
}

/** A value quoted for an error message, cut to 40 characters: a file may hold megabytes in one field. */
export function quoted(value: string | null | undefined): string {
  const text = value ?? ''
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)
}
