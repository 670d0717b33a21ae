/**
 * @module The WebSocket API's messages as typebox schemas (docs/API.md, "WebSocket API and live updates"): the
 * client's, which the server validates with (messages.ts, subscriptions.ts), and the server's, which the
 * OpenAPI document publishes with them, so neither can drift from what is sent.
 */

import { Type } from 'typebox'
import { balance, errorEnvelope, reconciliationWindow } from '../api/schemas/responses.js'

const messageId = Type.String({ minLength: 1, maxLength: 64, description: 'Chosen by the client; its answer carries it back' })

export const authMessage = Type.Object({
  type: Type.Literal('auth'),
  key: Type.String({ description: 'The API key (tu_…): the first message, within the auth timeout, when the upgrade had no Authorization header' }),
}, { description: 'Authenticate a socket opened without an Authorization header (browsers)' })

export const topicsMessage = Type.Object({
  type: Type.Union([Type.Literal('subscribe'), Type.Literal('unsubscribe')]),
  id: Type.Optional(messageId),
  reconciliations: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 1000, description: 'Window ids (recon:read)' })),
  accounts: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 1000, description: 'Account names or ids (accounts:read)' })),
}, { description: 'Watch (or stop watching) windows and accounts: at least one of either' })

export const requestMessage = Type.Object({
  type: Type.Literal('request'),
  id: messageId,
  method: Type.String({ minLength: 1, maxLength: 16 }),
  path: Type.String({ minLength: 1, maxLength: 4096, description: 'A /v2 path with its query string' }),
  headers: Type.Optional(Type.Object({}, { additionalProperties: Type.String({ maxLength: 4096 }), maxProperties: 64 })),
  body: Type.Optional(Type.Unknown({ description: 'The JSON body; a text/csv body as a string with that content-type header' })),
}, { description: 'Any /v2 route, through the same lifecycle as over HTTP' })

export const clientMessage = Type.Union([authMessage, topicsMessage, requestMessage], { description: 'A message the client sends: JSON text, one per frame' })

const authenticatedMessage = Type.Object({
  type: Type.Literal('authenticated'),
  key: Type.String({ description: 'key_…' }),
  workspace: Type.String(),
}, { description: 'The first message of an authenticated socket' })

const topicsAck = Type.Object({
  type: Type.Union([Type.Literal('subscribed'), Type.Literal('unsubscribed')]),
  id: Type.Optional(Type.String()),
  reconciliations: Type.Array(Type.String({ description: 'rec_…' })),
  accounts: Type.Array(Type.String({ description: 'acc_…: names resolved to ids' })),
}, { description: 'The answer to subscribe or unsubscribe; the current values follow a subscription' })

const responseMessage = Type.Object({
  type: Type.Literal('response'),
  id: Type.String(),
  status: Type.Integer({ minimum: 100, maximum: 599 }),
  headers: Type.Object({}, { additionalProperties: Type.String(), description: 'Lower-case names: x-ratelimit-limit, x-ratelimit-remaining, retry-after, replayed, allow' }),
  body: Type.Unknown({ description: 'The route\'s JSON answer as over HTTP (the Error envelope for a refusal); null for 204' }),
}, { description: 'The answer to a request message, once durable; in any order' })

const errorMessage = Type.Object({
  type: Type.Literal('error'),
  id: Type.Optional(Type.String()),
  error: errorEnvelope.properties.error,
}, { description: 'A message that could not be served (the socket stays open)' })

const reconciliationUpdate = Type.Object({ type: Type.Literal('reconciliation'), data: reconciliationWindow }, { description: 'A watched window as it is after a durable commit that changed it' })
const balanceUpdate = Type.Object({ type: Type.Literal('balance'), data: balance }, { description: 'A watched account\'s balance after a durable commit that changed it' })

export const serverMessage = Type.Union([authenticatedMessage, topicsAck, responseMessage, errorMessage, reconciliationUpdate, balanceUpdate], { description: 'A message the server sends: JSON text, one per frame' })

/** The component names of the OpenAPI document (src/edge/openapi.ts puts a $ref wherever one of these objects appears). */
export const streamNamedSchemas = [
  ['StreamClientMessage', clientMessage], ['StreamAuthMessage', authMessage], ['StreamTopicsMessage', topicsMessage], ['StreamRequestMessage', requestMessage],
  ['StreamServerMessage', serverMessage], ['StreamAuthenticated', authenticatedMessage], ['StreamTopicsAck', topicsAck], ['StreamResponse', responseMessage],
  ['StreamError', errorMessage], ['StreamReconciliationUpdate', reconciliationUpdate], ['StreamBalanceUpdate', balanceUpdate],
] as const
