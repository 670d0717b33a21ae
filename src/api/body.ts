/** @module Which parser reads a request body: JSON, a statement file (read further by the `parse` stage), or the route's own (the statement-line CSV) for its media type. */

import type { Rejection } from '../errors.js'
import { bodyFormatOf } from './body-format.js'
import { parseJson } from './json.js'
import type { LifecycleRoute } from './route.js'
import { namesStatementFile, statementFileOf } from './statement-file.js'

export type ParsedBody = { ok: true; value: unknown } | Rejection

/** Whether the route takes this body as a statement file (RouteBody.statementFile). */
function isStatementFileBody(route: LifecycleRoute, contentType: string, query: string): boolean {
  const statementFile = route.body?.statementFile
  return statementFile === 'every' || (statementFile === 'named' && namesStatementFile(contentType, new URLSearchParams(query)))
}

/** JSON unless the body is a statement file, or the route has a parser of its own and the body is its format (api/body-format.ts). */
export function isJsonBody(route: LifecycleRoute, contentType: string, bytes: Buffer | null, query: string): boolean {
  if (isStatementFileBody(route, contentType, query)) return false
  if (route.body?.parse === undefined) return true
  return bodyFormatOf(contentType, bytes) === 'json'
}

/** The body's value to validate (a statement file unread: the `parse` stage reads it); the route must take a body. The query's values are read after, by the `query` stage. */
export function parseBody(route: LifecycleRoute, bytes: Buffer, contentType: string, query: string): ParsedBody {
  if (isJsonBody(route, contentType, bytes, query)) return parseJson(bytes)
  return isStatementFileBody(route, contentType, query) ? statementFileOf(bytes, contentType) : route.body!.parse!(bytes, contentType, new URLSearchParams(query))
}
