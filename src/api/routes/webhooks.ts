/** @module /v2/webhooks routes: subscribe, list, read, unsubscribe, and the delivery attempts of a subscription. */

import { reject } from '../../errors.js'
import { webhookUrlProblem } from '../../ledger/webhooks.js'
import { newWebhookSecret } from '../../webhooks/signature.js'
import { v2Route, type V2Route } from '../route.js'
import { cursorQuery, limitQuery } from '../query.js'
import { webhookCreate } from '../schemas/ledger.js'
import { createdWebhook, webhook, webhookDeliveryPage, webhookPage } from '../schemas/responses.js'
import { validator } from '../schemas/validate.js'

const webhookCreateBody = validator(webhookCreate)

const cursor = cursorQuery(256)

export const webhookRoutes: V2Route[] = [
  v2Route({
    method: 'POST', pattern: '/v2/webhooks', scope: 'hooks:write', summary: 'Subscribe a URL to events',
    body: { validate: webhookCreateBody },
    errors: ['request_invalid'],
    response: { status: 201, description: 'The subscription with its signing secret (shown only here)', schema: createdWebhook },
    handle: ({ envelope, body }) => {
      const problem = webhookUrlProblem(body.url)
      if (problem !== null) return reject('request_invalid', `url: ${problem}.`, [{ path: '/url', message: problem }])
      // The secret is random, so it is made here and logged inside the command: replay gives the same one.
      return { ...envelope, type: 'webhook.create', url: body.url, events: body.events, secret: newWebhookSecret() }
    },
  }),
  v2Route({
    method: 'GET', pattern: '/v2/webhooks', scope: 'hooks:read', summary: 'List subscriptions (without their secrets)',
    query: [limitQuery, cursor],
    errors: ['request_invalid'],
    response: { status: 200, description: 'A page of subscriptions, in creation order', schema: webhookPage },
    handle: ({ query }) => ({ read: { name: 'webhook.list', params: { limit: query.limit, cursor: query.cursor } } }),
  }),
  v2Route({
    method: 'GET', pattern: '/v2/webhooks/:id', scope: 'hooks:read', summary: 'Read a subscription (without its secret)',
    errors: ['not_found'],
    response: { status: 200, description: 'The subscription', schema: webhook },
    handle: ({ params }) => ({ read: { name: 'webhook.get', params: { webhook: params.id } } }),
  }),
  v2Route({
    method: 'DELETE', pattern: '/v2/webhooks/:id', scope: 'hooks:write', summary: 'Unsubscribe: nothing more is delivered, queued events are dropped',
    errors: ['not_found'],
    response: { status: 204, description: 'Deleted' },
    handle: ({ envelope, params }) => ({ ...envelope, type: 'webhook.delete', webhook: params.id }),
  }),
  v2Route({
    method: 'GET', pattern: '/v2/webhooks/:id/deliveries', scope: 'hooks:read', summary: 'Deliveries of a subscription: one per event, with attempts and status',
    query: [limitQuery, cursor],
    errors: ['request_invalid', 'not_found'],
    response: { status: 200, description: 'A page of deliveries, in event order (the order they are delivered in)', schema: webhookDeliveryPage },
    handle: ({ params, query }) => ({ deliveries: { webhook: params.id, limit: query.limit, cursor: query.cursor } }),
  }),
]
