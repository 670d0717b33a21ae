/**
 * @module A `response` message read without parsing its body: the id and status are scanned from the text
 * the server writes (src/stream/replies.ts, the field order of docs/API.md, WebSocket API and live updates), headers and body parsed when first read.
 */
// Why: a client with many writes in flight (bench/stream.ts's 1,024) spent more on JSON.parse of answers it
// only checks the status of than on anything else of its own; reading a body costs the same as before.

import type { StreamResponse } from './types.js'

const prefix = '{"type":"response","id":"'
const statusKey = ',"status":'
const headersKey = ',"headers":'
const bodyKey = ',"body":'
const quote = 0x22
const backslash = 0x5c
const openBrace = 0x7b
const closeBrace = 0x7d
const zero = 0x30

/** A response with its headers and body parsed on first read; the whole message parsed instead if a slice does not parse. */
export class LazyResponse<B = any> implements StreamResponse<B> {
  readonly status: number
  readonly #text: string
  #headersText: string | null
  #headers: Readonly<Record<string, string>> | undefined
  #bodyText: string | null
  #body: B | undefined

  constructor(text: string, status: number, headersText: string, bodyText: string) {
    this.#text = text
    this.status = status
    this.#headersText = headersText
    this.#bodyText = bodyText
  }

  get headers(): Readonly<Record<string, string>> {
    if (this.#headersText !== null) {
      this.#headers = this.#parse(this.#headersText, 'headers') as Record<string, string>
      this.#headersText = null
    }
    return this.#headers!
  }

  get body(): B {
    if (this.#bodyText !== null) {
      this.#body = this.#parse(this.#bodyText, 'body') as B
      this.#bodyText = null
    }
    return this.#body as B
  }

  toJSON(): { status: number; headers: Readonly<Record<string, string>>; body: B } {
    return { status: this.status, headers: this.headers, body: this.body }
  }

  #parse(slice: string, field: 'headers' | 'body'): unknown {
    try {
      return JSON.parse(slice)
    } catch {
      // A server that wrote the fields otherwise than scanned: the message as a whole says what the field is.
      return (JSON.parse(this.#text) as Record<string, unknown>)[field]
    }
  }
}

/** The id and the response of a `response` message as the server writes it; null for any other text (parse it whole). */
export function scanResponse(text: string): { id: string; response: LazyResponse } | null {
  if (!text.startsWith(prefix)) return null
  const idEnd = text.indexOf('"', prefix.length)
  if (idEnd < 0 || text.lastIndexOf('\\', idEnd) >= prefix.length) return null
  if (!text.startsWith(statusKey, idEnd + 1)) return null
  let index = idEnd + 1 + statusKey.length
  const digitsFrom = index
  let status = 0
  for (let code = text.charCodeAt(index); code >= zero && code <= zero + 9; code = text.charCodeAt(++index)) status = status * 10 + code - zero
  if (index === digitsFrom || !text.startsWith(headersKey, index)) return null
  const headersFrom = index + headersKey.length
  const headersEnd = flatObjectEnd(text, headersFrom)
  if (headersEnd < 0 || !text.startsWith(bodyKey, headersEnd) || text.charCodeAt(text.length - 1) !== closeBrace) return null
  const bodyText = text.slice(headersEnd + bodyKey.length, text.length - 1)
  return { id: text.slice(prefix.length, idEnd), response: new LazyResponse(text, status, text.slice(headersFrom, headersEnd), bodyText) }
}

/** The index after the `}` closing the object of strings at `from` (strings skipped with their escapes); -1 if it is not one. */
function flatObjectEnd(text: string, from: number): number {
  if (text.charCodeAt(from) !== openBrace) return -1
  let inString = false
  for (let index = from + 1; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (inString) {
      if (code === backslash) index++
      else if (code === quote) inString = false
    } else if (code === quote) inString = true
    else if (code === closeBrace) return index + 1
    else if (code === openBrace) return -1
  }
  return -1
}
