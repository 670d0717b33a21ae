/** @module Which parser reads a request body: only a `text/csv` body is CSV, and never one that is JSON. */

export type BodyFormat = 'json' | 'csv'

const openBrace = 0x7b

/** Whether the body's first byte past JSON whitespace is `{`. */
function startsLikeJsonObject(bytes: Uint8Array): boolean {
  for (const byte of bytes) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return byte === openBrace
  }
  return false
}

/**
 * The format of a body sent with this Content-Type (the header's value, or undefined when absent).
 * Only the media type `text/csv` (any letter case, parameters such as `; charset=utf-8` allowed) is
 * CSV. Every other type is read as JSON, whatever it declares: `curl -d` sends
 * `application/x-www-form-urlencoded`, many clients send `text/plain` or nothing, and a client that
 * means JSON should not have to get the header right. A body that is then not JSON answers 400
 * json_invalid, as on every other route.
 *
 * A `text/csv` body that opens like a JSON object is JSON too: no statement CSV can start with `{`
 * (its header names the columns), so this only rescues a JSON body sent with the wrong header.
 */
export function bodyFormatOf(contentType: string | undefined, bytes: Uint8Array | null = null): BodyFormat {
  if (contentType === undefined) return 'json'
  const semicolonAt = contentType.indexOf(';')
  const mediaType = (semicolonAt < 0 ? contentType : contentType.slice(0, semicolonAt)).trim().toLowerCase()
  if (mediaType !== 'text/csv') return 'json'
  return bytes !== null && startsLikeJsonObject(bytes) ? 'json' : 'csv'
}
