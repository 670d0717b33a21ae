/** @module Which parser reads a request body: JSON, or the route's own (the statement-line CSV) for its media type. */

import type { Rejection } from '../errors.js'
import { bodyFormatOf } from './body-format.js'
import { parseJson } from './json.js'
import type { LifecycleRoute } from './route.js'

export type ParsedBody = { ok: true; value: unknown } | Rejection

/** JSON unless the route has a parser of its own and the body is its format (api/body-format.ts). */
export function isJsonBody(route: LifecycleRoute, contentType: string, bytes: Buffer | null, query: string): boolean {
  const body = route.body
  if (body?.parse === undefined) return true
  if (body.parsesEvery === true) return false
  if (body.reads !== undefined && body.reads(contentType, new URLSearchParams(query))) return false
  return bodyFormatOf(contentType, bytes) === 'json'
}

/** The body's value to validate; the route must take a body. The query's values are read after, by the `query` stage. */
export function parseBody(route: LifecycleRoute, bytes: Buffer, contentType: string, query: string): ParsedBody {
  if (route.body?.parse !== undefined && !isJsonBody(route, contentType, bytes, query)) return route.body.parse(bytes, contentType, new URLSearchParams(query))
  return parseJson(bytes)
}
