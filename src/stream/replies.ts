/** @module The server's messages on a socket as JSON text: responses to requests, and errors for messages that could not be served. */

import type { Headers } from '../api/lifecycle.js'
import { errorBody, type Rejection } from '../errors.js'

/**
 * Each header name as its JSON key (`"x-ratelimit-limit":`): the names come from the service, a handful of
 * them, and every response carries some. Bounded all the same.
 */
const nameKeys = new Map<string, string>()
const nameKeysMax = 64

function nameKeyOf(name: string): string {
  let key = nameKeys.get(name)
  if (key === undefined) {
    key = `${JSON.stringify(name.toLowerCase())}:`
    if (nameKeys.size < nameKeysMax) nameKeys.set(name, key)
  }
  return key
}

/** `{"type":"response","id","status","headers","body"}`: the body is the lifecycle's JSON text, put in as is. */
export function responseText(id: string, status: number, body: string, headers: Headers): string {
  let headerText = ''
  for (let index = 0; index < headers.length; index++) {
    const header = headers[index]
    headerText += (index === 0 ? '' : ',') + nameKeyOf(header[0]) + JSON.stringify(header[1])
  }
  return `{"type":"response","id":${JSON.stringify(id)},"status":${status},"headers":{${headerText}},"body":${body === '' ? 'null' : body}}`
}

/** `{"type":"error","id"?,"error":{…}}`: a message that could not be served (the socket stays open). */
export function errorText(rejection: Rejection, id: unknown): string {
  return errorEnvelopeText(errorBody(rejection), id)
}

/** The same from an error envelope already written (`{"error":{…}}`, a shard's reply). */
export function errorEnvelopeText(envelope: string, id: unknown): string {
  const idText = typeof id === 'string' && id.length <= 64 ? `"id":${JSON.stringify(id)},` : ''
  return `{"type":"error",${idText}${envelope.slice(1)}`
}

