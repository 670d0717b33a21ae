/** @module Which parser reads a request body: JSON, or the route's own (the statement-line CSV) for its media type. */

import type { Rejection } from '../errors.js'
import { parseJson } from './json.js'
import type { LifecycleRoute } from './route.js'

export type ParsedBody = { ok: true; value: unknown } | Rejection

export function isJsonBody(route: LifecycleRoute, contentType: string): boolean {
  return route.body?.parse === undefined || contentType.toLowerCase().includes('json')
}

/** The body's value to validate; the route must take a body. */
export function parseBody(route: LifecycleRoute, bytes: Buffer, contentType: string): ParsedBody {
  if (route.body?.parse !== undefined && !isJsonBody(route, contentType)) return route.body.parse(bytes, contentType)
  return parseJson(bytes)
}
