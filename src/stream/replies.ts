/** @module The server's messages on a socket as JSON text: responses to requests, and errors for messages that could not be served. */

import type { Headers } from '../api/lifecycle.js'
import { errorBody, type Rejection } from '../errors.js'

/** `{"type":"response","id","status","headers","body"}`: the body is the lifecycle's JSON text, put in as is. */
export function responseText(id: string, status: number, body: string, headers: Headers): string {
  let headerText = ''
  for (const [name, value] of headers) headerText += `${headerText === '' ? '' : ','}${JSON.stringify(name.toLowerCase())}:${JSON.stringify(value)}`
  return `{"type":"response","id":${JSON.stringify(id)},"status":${status},"headers":{${headerText}},"body":${body === '' ? 'null' : body}}`
}

/** `{"type":"error","id"?,"error":{…}}`: a message that could not be served (the socket stays open). */
export function errorText(rejection: Rejection, id: unknown): string {
  const idText = typeof id === 'string' && id.length <= 64 ? `"id":${JSON.stringify(id)},` : ''
  return `{"type":"error",${idText}${errorBody(rejection).slice(1)}`
}

