/**
 * The webhook subscriptions' data model (src/ledger/webhooks-state.ts): each workspace starts with no
 * subscription, none ever created (lastSeq 0, so the first id is seq 1), and a map of its own; the first
 * subscription a workspace makes through the real command takes seq 1 and the count never goes back.
 */
import t from 'tap'
import { createWebhooksState, type WebhookSubscription } from '../../src/ledger/webhooks-state.ts'
import { machine, ok, run } from '../support/workspace-machine.ts'

t.test('createWebhooksState: no subscriptions, lastSeq 0, a fresh map each time', async (t) => {
  const a = createWebhooksState()
  const b = createWebhooksState()
  t.equal(a.lastSeq, 0, 'none created yet: the first gets seq 1')
  t.equal(a.subscriptions.size, 0)
  t.type(a.subscriptions, Map, 'a Map: live subscriptions in creation order by id')
  t.not(a.subscriptions, b.subscriptions, 'not one shared map')
  a.subscriptions.set('wh_x', { id: 'wh_x', seq: 1 } as WebhookSubscription)
  a.lastSeq = 1
  t.equal(b.subscriptions.size, 0, 'a subscription of one workspace is not in another')
  t.equal(b.lastSeq, 0)
  t.equal(createWebhooksState().subscriptions.size, 0)
})

t.test('a workspace\'s state starts from it: ids from seq 1, never reused after a delete', async (t) => {
  const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`
  const ctx = machine(['assets:bank'], Date.parse('2026-12-01T12:00:00Z'))
  t.same(ctx.state.webhooks, createWebhooksState(), 'a new workspace holds the empty model')
  const subscribe = () => ok(run(ctx, { type: 'webhook.create', url: 'https://example.test/hook', events: ['entry.posted'], secret })).id as string
  const first = subscribe()
  t.equal(ctx.state.webhooks.lastSeq, 1)
  t.equal(ctx.state.webhooks.subscriptions.get(first)?.seq, 1)
  ok(run(ctx, { type: 'webhook.delete', webhook: first }))
  t.equal(ctx.state.webhooks.subscriptions.size, 0)
  t.equal(ctx.state.webhooks.lastSeq, 1, 'the deleted one still counts')
  const second = subscribe()
  t.not(second, first, 'its id is not reused')
  t.equal(ctx.state.webhooks.subscriptions.get(second)?.seq, 2)
})
