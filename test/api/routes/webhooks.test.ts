/**
 * /v2/webhooks handlers (src/api/routes/webhooks.ts) called with a built context: a subscription becomes webhook.create
 * with a fresh signing secret made here (so replay gives the same one), a URL the ledger would refuse is refused first
 * naming /url; the reads, the deliveries read beside the log, and webhook.delete.
 */
import t from 'tap'
import { webhookRoutes } from '../../../src/api/routes/webhooks.ts'
import { webhookUrlLengthMax } from '../../../src/ledger/webhooks.ts'
import { envelope, handled, routeOf } from '../../support/route-context.ts'

const create = routeOf(webhookRoutes, 'POST', '/v2/webhooks')
const events = ['entry.posted', 'match.created']

t.test('POST /v2/webhooks: webhook.create with the URL, the events as given, and a new whsec_ secret each time', async (t) => {
  const first = handled(create, { body: { url: 'https://hooks.example.com/in', events } }) as Record<string, unknown>
  const second = handled(create, { body: { url: 'https://hooks.example.com/in', events } }) as Record<string, unknown>
  t.match(first, { ...envelope, type: 'webhook.create', url: 'https://hooks.example.com/in', events })
  t.match(first.secret, /^whsec_[A-Za-z0-9+/]{20,}={0,2}$/)
  t.not(first.secret, second.secret, 'random: one per subscription')
  t.match(handled(create, { body: { url: 'http://127.0.0.1:8080/x?y=1', events: ['entry.posted'] } }), { type: 'webhook.create' }, 'plain http and a port are fine')
})

t.test('POST /v2/webhooks: URLs refused before any command, naming /url', async (t) => {
  const refused: [string, string][] = [
    ['not a url', 'not an absolute URL'],
    ['/relative/path', 'not an absolute URL'],
    ['ftp://example.com/x', 'the scheme must be http or https'],
    ['https://user:pw@example.com/x', 'must not carry credentials'],
    ['https://example.com/x#frag', 'must not carry a fragment'],
  ]
  for (const [url, problem] of refused) {
    t.same(handled(create, { body: { url, events } }), {
      ok: false, code: 'request_invalid', message: `url: ${problem}.`, details: [{ path: '/url', message: problem }],
    }, url)
  }
  const longest = `https://example.com/${'a'.repeat(webhookUrlLengthMax - 'https://example.com/'.length)}`
  t.match(handled(create, { body: { url: longest, events } }), { type: 'webhook.create' }, 'at the length limit')
})

t.test('the reads, the deliveries and the delete', async (t) => {
  t.same(handled(routeOf(webhookRoutes, 'GET', '/v2/webhooks'), { query: { limit: 20, cursor: null } }), { read: { name: 'webhook.list', params: { limit: 20, cursor: null } } })
  t.same(handled(routeOf(webhookRoutes, 'GET', '/v2/webhooks/:id'), { params: { id: 'wh_1' } }), { read: { name: 'webhook.get', params: { webhook: 'wh_1' } } })
  t.same(handled(routeOf(webhookRoutes, 'GET', '/v2/webhooks/:id/deliveries'), { params: { id: 'wh_1' }, query: { limit: 2, cursor: 'c' } }), { deliveries: { webhook: 'wh_1', limit: 2, cursor: 'c' } })
  t.same(handled(routeOf(webhookRoutes, 'DELETE', '/v2/webhooks/:id'), { params: { id: 'wh_1' } }), { ...envelope, type: 'webhook.delete', webhook: 'wh_1' })
})
