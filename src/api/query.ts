/**
 * @module Query-string parameters: limits, cursors, timestamps and enums, each failing as request_invalid. A route
 * declares the ones it reads; the lifecycle's `query` stage reads them (queryValuesOf) and hands the handler their values.
 */

import { Type, type TSchema } from 'typebox'
import { reject, type Rejection } from '../errors.js'
import { parseTimestampMs } from '../ledger/calendar.js'
import { pageLimitDefault, pageLimitMax } from '../ledger/pages.js'

export type Parsed<T> = { ok: true; value: T } | Rejection

function invalid(name: string, message: string): Rejection {
  return reject('request_invalid', `Query parameter ${name}: ${message}.`, [{ path: `/${name}`, message }])
}

/**
 * null when every percent-encoded sequence of the raw query is UTF-8, else request_invalid naming the
 * parameter. URLSearchParams reads bytes that are not (an encoded surrogate `%ED%A0%80`, a Latin-1
 * `%FC`) as U+FFFD; a value so changed would be stored or looked up as something the client never sent.
 * A `%` not followed by two hex digits stays literal, as URLSearchParams keeps it.
 */
export function queryEncodingProblem(raw: string): Rejection | null {
  if (!raw.includes('%')) return null
  for (const pair of raw.split('&')) {
    const [name, value = ''] = pair.split('=', 2).map((part) => part.replace(/\+/g, ' ').replace(/%(?![0-9a-fA-F]{2})/g, '%25'))
    for (const part of [name, value]) {
      try {
        decodeURIComponent(part)
      } catch {
        const label = safeName(name)
        return invalid(label, 'is not UTF-8 once percent-decoded (bytes that are not UTF-8 would read as U+FFFD)')
      }
    }
  }
  return null
}

/** A parameter's name for an error message; a name that is itself not UTF-8 is `query`. */
function safeName(name: string): string {
  try {
    return decodeURIComponent(name) || 'query'
  } catch {
    return 'query'
  }
}

function limitParam(query: URLSearchParams): Parsed<number> {
  const text = query.get('limit')
  if (text === null) return { ok: true, value: pageLimitDefault }
  const value = Number(text)
  if (!/^\d+$/.test(text) || value < 1 || value > pageLimitMax) return invalid('limit', `must be an integer from 1 to ${pageLimitMax}`)
  return { ok: true, value }
}

function timestampParam(query: URLSearchParams, name: string): Parsed<number | null> {
  const text = query.get(name)
  if (text === null) return { ok: true, value: null }
  const value = parseTimestampMs(text)
  if (value === null) return invalid(name, 'must be an RFC 3339 timestamp')
  return { ok: true, value }
}

function integerParam(query: URLSearchParams, name: string, min: number, max: number, fallback: number): Parsed<number> {
  const text = query.get(name)
  if (text === null) return { ok: true, value: fallback }
  const value = Number(text)
  if (!/^\d{1,16}$/.test(text) || value < min || value > max) return invalid(name, `must be an integer from ${min} to ${max}`)
  return { ok: true, value }
}

function textParam(query: URLSearchParams, name: string, lengthMax = 256): Parsed<string | null> {
  const text = query.get(name)
  if (text === null) return { ok: true, value: null }
  if (text.length === 0 || text.length > lengthMax) return invalid(name, `must be 1 to ${lengthMax} characters`)
  return { ok: true, value: text }
}

function enumParam<T extends string>(query: URLSearchParams, name: string, values: readonly T[]): Parsed<T | null> {
  const text = query.get(name)
  if (text === null) return { ok: true, value: null }
  if (!(values as readonly string[]).includes(text)) return invalid(name, `must be one of ${values.join(', ')}`)
  return { ok: true, value: text as T }
}

/**
 * A query parameter as a route declares it: how the lifecycle reads it and the JSON Schema the OpenAPI
 * document shows, side by side, so the two cannot name different parameters. `N` is its name as a literal
 * type, so a handler's values are typed by name (QueryValues).
 */
export interface QueryParam<T = unknown, N extends string = string> {
  readonly name: N
  readonly schema: TSchema
  readonly description: string
  readonly parse: (query: URLSearchParams) => Parsed<T>
}

/** What a handler gets for a route's declared parameters: each one's value, by its name (an absent one: its default or null). */
export type QueryValues<Q extends readonly QueryParam[]> = { readonly [P in Q[number] as P['name']]: P extends QueryParam<infer T> ? T : never }

const noValues: Readonly<Record<string, unknown>> = Object.freeze({})
/** The query of most requests (none): the parameters only read it, so one serves them all rather than a new one each. */
const noQuery = new URLSearchParams()

/**
 * The `query` stage: the raw query string (without `?`) read against a route's declared parameters. Bytes
 * that are not UTF-8 are refused in any parameter, declared or not; then each declared one is read in
 * declaration order, the first bad one answering. A parameter the route does not declare is ignored
 * (docs/API.md, Conventions: caches and proxies add their own).
 */
export function queryValuesOf(declared: readonly QueryParam[], raw: string): Parsed<Readonly<Record<string, unknown>>> {
  const encoding = queryEncodingProblem(raw)
  if (encoding !== null) return encoding
  if (declared.length === 0) return { ok: true, value: noValues }
  const query = raw === '' ? noQuery : new URLSearchParams(raw)
  const values: Record<string, unknown> = {}
  for (const param of declared) {
    const parsed = param.parse(query)
    if (!parsed.ok) return parsed
    values[param.name] = parsed.value
  }
  return { ok: true, value: values }
}

export const limitQuery: QueryParam<number, 'limit'> = {
  name: 'limit', schema: Type.Integer({ minimum: 1, maximum: pageLimitMax, default: pageLimitDefault }),
  description: `Page size, 1 to ${pageLimitMax}`, parse: limitParam,
}

export function cursorQuery(lengthMax: number): QueryParam<string | null, 'cursor'> {
  return { name: 'cursor', schema: Type.String({ minLength: 1, maxLength: lengthMax }), description: 'next_cursor of the previous page', parse: (query) => textParam(query, 'cursor', lengthMax) }
}

export function timestampQuery<const N extends string>(name: N, description: string): QueryParam<number | null, N> {
  return { name, schema: Type.String({ format: 'date-time', maxLength: 64 }), description: `${description} (RFC 3339)`, parse: (query) => timestampParam(query, name) }
}

export function textQuery<const N extends string>(name: N, description: string, lengthMax = 256): QueryParam<string | null, N> {
  return { name, schema: Type.String({ minLength: 1, maxLength: lengthMax }), description, parse: (query) => textParam(query, name, lengthMax) }
}

export function enumQuery<const N extends string, T extends string>(name: N, values: readonly T[], description: string): QueryParam<T | null, N> {
  return { name, schema: Type.Enum([...values]), description, parse: (query) => enumParam(query, name, values) }
}

export function integerQuery<const N extends string>(name: N, min: number, max: number, fallback: number, description: string): QueryParam<number, N> {
  return { name, schema: Type.Integer({ minimum: min, maximum: max, default: fallback }), description, parse: (query) => integerParam(query, name, min, max, fallback) }
}
