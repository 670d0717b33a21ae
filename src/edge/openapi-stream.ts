/**
 * @module GET /v2/stream in the OpenAPI document: OpenAPI 3.1 describes the upgrade (the request's headers,
 * 101 and the refusals) but has no notion of the messages that follow, so the operation carries them as an
 * extension, `x-websocket`: $refs to the message schemas (src/stream/message-schemas.ts) and the close codes.
 */

import type { ErrorCode } from '../errors.js'
import { closeElsewhere, closeUnauthenticated } from '../stream/messages.js'
import { inFlightMax } from '../stream/session.js'

type Json = Record<string, unknown>

const upgradeHeader = (name: string, description: string, schema: Json): Json => ({ name, in: 'header', required: true, description, schema })

export const streamDescription = [
  'Upgrades to a WebSocket on the same port (docs/API.md, "WebSocket API and live updates").',
  'Authenticate with this request\'s Authorization: Bearer <API key> (a wrong key: 401, no upgrade), or, where headers cannot be set (browsers),',
  'with a first message {"type":"auth","key":"tu_…"} within STREAM_AUTH_TIMEOUT_MS (else the socket closes with 4401).',
  'Messages are JSON text, one per frame: x-websocket.clientMessages and x-websocket.serverMessages give their schemas.',
  'request messages run any /v2 route with the same scopes, rate budgets, idempotency and durability as HTTP;',
  'subscribe messages watch windows (recon:read) and accounts (accounts:read), whose values come after every durable commit that changes them.',
].join(' ')

/** The path item of GET /v2/stream; `errorResponse` is the document's error response for a status and its codes. */
export function streamPathItem(errorResponse: (status: number, codes: readonly ErrorCode[]) => Json): Json {
  return {
    get: {
      operationId: 'getStream',
      summary: 'The WebSocket API: requests, subscriptions and live updates on one socket',
      description: streamDescription,
      tags: ['stream'],
      // The key in the upgrade's header, or no header and an auth message.
      security: [{ apiKey: [] }, {}],
      parameters: [
        upgradeHeader('Upgrade', 'websocket', { type: 'string', const: 'websocket' }),
        upgradeHeader('Connection', 'Upgrade', { type: 'string' }),
        upgradeHeader('Sec-WebSocket-Key', 'RFC 6455', { type: 'string' }),
        upgradeHeader('Sec-WebSocket-Version', 'RFC 6455', { type: 'string', const: '13' }),
      ],
      responses: {
        101: { description: 'Switching Protocols: the socket is open; with the Authorization header, its first message is {"type":"authenticated",…}' },
        400: errorResponse(400, ['request_invalid']),
        401: errorResponse(401, ['unauthenticated']),
        503: errorResponse(503, ['unavailable']),
      },
      'x-websocket': {
        clientMessages: { $ref: '#/components/schemas/StreamClientMessage' },
        serverMessages: { $ref: '#/components/schemas/StreamServerMessage' },
        closeCodes: {
          1001: 'The server is shutting down: reconnect later',
          [closeUnauthenticated]: 'Not authenticated: a wrong key in the auth message, another message before it, none in time, or the key was revoked',
          // Cluster mode: the error message before it names the owner's /v2/stream URL (or says none serves the shard now).
          [closeElsewhere]: 'The key\'s workspace is served by another node: connect to the URL in the error message before the close, or again shortly during a takeover',
        },
        unansweredRequestsMax: inFlightMax,
      },
    },
  }
}
