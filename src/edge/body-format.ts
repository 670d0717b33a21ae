/** @module Which parser reads a request body: the Content-Type decides, and only `text/csv` is CSV. */

export type BodyFormat = 'json' | 'csv'

/**
 * The format of a body sent with this Content-Type (the header's value, or undefined when absent).
 * Only the media type `text/csv` (any letter case, parameters such as `; charset=utf-8` allowed) is
 * CSV. Every other type is read as JSON, whatever it declares: `curl -d` sends
 * `application/x-www-form-urlencoded`, many clients send `text/plain` or nothing, and a client that
 * means JSON should not have to get the header right. A body that is then not JSON answers 400
 * json_invalid, as on every other route.
 */
export function bodyFormatOf(contentType: string | undefined): BodyFormat {
  if (contentType === undefined) return 'json'
  const semicolonAt = contentType.indexOf(';')
  const mediaType = (semicolonAt < 0 ? contentType : contentType.slice(0, semicolonAt)).trim().toLowerCase()
  return mediaType === 'text/csv' ? 'csv' : 'json'
}
