/** @module Request ids: keep a sane incoming Request-Id / X-Request-Id, so a caller's trace carries through; else make one. */

import { randomUUID } from 'node:crypto'

/**
 * UUIDs, ULIDs, W3C trace ids, base64 and most vendors' ids fit; spaces, quotes and control characters
 * do not, so an id is safe to echo in a header and to search for in logs.
 */
const saneRequestId = /^[A-Za-z0-9._~:/+=@-]+$/

function isSane(candidate: string | undefined, lengthMax: number): candidate is string {
  return candidate !== undefined && candidate.length >= 1 && candidate.length <= lengthMax && saneRequestId.test(candidate)
}

/** Request-Id first, then X-Request-Id, else a new UUID. */
export function requestIdOf(requestId: string | undefined, xRequestId: string | undefined, lengthMax: number): string {
  if (isSane(requestId, lengthMax)) return requestId
  if (isSane(xRequestId, lengthMax)) return xRequestId
  return randomUUID()
}
