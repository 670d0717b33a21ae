/** @module A string as JSON text, as JSON.stringify writes it, without entering JSON.stringify for the common case. */

/** Printable ASCII without `"` and `\`: what JSON.stringify writes unchanged between quotes. */
const plainAscii = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/

/**
 * JSON.stringify(value) for a string. Each call of JSON.stringify enters V8's C++ serializer (~0.2 µs
 * here, docs/PERFORMANCE.md); ids, names and timestamps are plain ASCII and need only their quotes.
 * Anything else (escapes, non-ASCII, lone surrogates) goes to JSON.stringify.
 */
export function jsonText(value: string): string {
  return plainAscii.test(value) ? `"${value}"` : JSON.stringify(value)
}
