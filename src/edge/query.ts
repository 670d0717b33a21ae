/** @module Query-string parameters: limits, cursors, timestamps and enums, each failing as request_invalid. */

import { reject, type Rejection } from '../errors.js'
import { parseTimestampMs } from '../ledger/calendar.js'
import { pageLimitDefault, pageLimitMax } from '../ledger/pages.js'

export type Parsed<T> = { ok: true; value: T } | Rejection

function invalid(name: string, message: string): Rejection {
  return reject('request_invalid', `Query parameter ${name}: ${message}.`, [{ path: `/${name}`, message }])
}

export function limitParam(query: URLSearchParams): Parsed<number> {
  const text = query.get('limit')
  if (text === null) return { ok: true, value: pageLimitDefault }
  const value = Number(text)
  if (!/^\d+$/.test(text) || value < 1 || value > pageLimitMax) return invalid('limit', `must be an integer from 1 to ${pageLimitMax}`)
  return { ok: true, value }
}

export function timestampParam(query: URLSearchParams, name: string): Parsed<number | null> {
  const text = query.get(name)
  if (text === null) return { ok: true, value: null }
  const value = parseTimestampMs(text)
  if (value === null) return invalid(name, 'must be an RFC 3339 timestamp')
  return { ok: true, value }
}

export function textParam(query: URLSearchParams, name: string, lengthMax = 256): Parsed<string | null> {
  const text = query.get(name)
  if (text === null) return { ok: true, value: null }
  if (text.length === 0 || text.length > lengthMax) return invalid(name, `must be 1 to ${lengthMax} characters`)
  return { ok: true, value: text }
}

export function enumParam<T extends string>(query: URLSearchParams, name: string, values: readonly T[]): Parsed<T | null> {
  const text = query.get(name)
  if (text === null) return { ok: true, value: null }
  if (!(values as readonly string[]).includes(text)) return invalid(name, `must be one of ${values.join(', ')}`)
  return { ok: true, value: text as T }
}
