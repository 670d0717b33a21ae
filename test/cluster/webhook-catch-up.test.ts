/**
 * @module Webhook deliveries of records a standby caught up at its start (docs/CLUSTER.md, "Webhooks"): a node started
 * after events were written reads those records from the database into its local log before its memory is built,
 * then replays them; it must keep what the owner wrote beside them (the outbox items) as it does for records it
 * follows, so that after a takeover it delivers what was pending, and not what the old owner had delivered.
 */

import t from 'tap'
import { killNodes, request, resetDatabase, startNode, testDatabase, waitFor, type ClusterNode } from '../support/cluster-nodes.ts'
import { startReceiver, verifySignature, type Received } from '../support/webhook-receiver.ts'

t.setTimeout(600_000)

const database = testDatabase(t)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Retries within a second or so, so a pending delivery is tried again soon after the receiver accepts. */
const webhookEnv = { WEBHOOK_BACKOFF_BASE_MS: '50', WEBHOOK_BACKOFF_CAP_MS: '300', WEBHOOK_TIMEOUT_MS: '2000' }

const sale = (description: string) => ({ lines: [{ account: 'assets:bank', amount: 100 }, { account: 'income:sales', amount: -100 }], description })

t.test('a standby started after events were written delivers the pending ones after a takeover', async (t) => {
  const receiver = await startReceiver()
  t.teardown(() => receiver.close())
  let accepting = true
  receiver.respond = () => (accepting ? 200 : 503)
  const accepted = (description: string) => (request: Received) => request.status === 200 && request.body.includes(`"description":${JSON.stringify(description)}`)

  await resetDatabase(database.db)
  const nodes: ClusterNode[] = []
  t.teardown(() => killNodes(nodes))
  nodes.push(await startNode(database.url, 'node-1', webhookEnv))
  const [owner] = nodes
  const key = owner.process.apiKey!
  for (const name of ['assets:bank', 'income:sales']) t.equal((await request(owner.process.baseUrl, key, 'POST', '/v2/accounts', { name })).status, 201)
  const subscription = await request(owner.process.baseUrl, key, 'POST', '/v2/webhooks', { url: receiver.url, events: ['entry.posted'] })
  t.equal(subscription.status, 201)
  const secret: string = subscription.body.secret

  // All three written while only the owner runs: the second node reads them at its start.
  t.equal((await request(owner.process.baseUrl, key, 'POST', '/v2/entries', sale('before'))).status, 201)
  await receiver.waitFor(1, 10_000, accepted('before'))
  accepting = false
  for (const description of ['pending-1', 'pending-2']) t.equal((await request(owner.process.baseUrl, key, 'POST', '/v2/entries', sale(description))).status, 201, `${description} written`)
  const tried = await waitFor(async () => receiver.received.filter((request) => request.body.includes('pending-1')).length >= 2, 10_000)
  t.ok(tried, 'the owner tried to deliver the first and tried again (refused)')

  nodes.push(await startNode(database.url, 'node-2', webhookEnv))
  const standby = nodes[1]
  // The owner tells what it finished once a second; the standby reads it once a second.
  await sleep(2_500)
  owner.process.child.kill('SIGKILL')
  await owner.process.exited
  accepting = true
  const taken = await waitFor(async () => (await request(standby.process.baseUrl, key, 'GET', '/v2/accounts')).status === 200, 20_000)
  t.ok(taken, 'the standby took the shard over')
  for (const description of ['pending-1', 'pending-2']) {
    const delivered = await waitFor(async () => receiver.received.some(accepted(description)), 20_000)
    t.ok(delivered, `${description} (caught up at the standby's start) delivered by the new owner`)
    const deliveries = receiver.received.filter(accepted(description))
    t.ok(deliveries.length >= 1 && deliveries.every((delivery) => verifySignature(secret, delivery)), 'signed with the subscription\'s secret')
    const ids = new Set(receiver.received.filter((request) => request.body.includes(description)).map((request) => request.headers['webhook-id']))
    t.equal(ids.size, 1, 'every attempt of the event carries the same webhook-id, the old owner\'s and the new one\'s')
  }
  await sleep(1_000)
  t.equal(receiver.received.filter(accepted('before')).length, 1, 'an event the old owner had delivered is not delivered again by the new one')
})
