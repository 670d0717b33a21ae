/**
 * @module Webhook deliveries across a takeover (docs/CLUSTER.md, "Webhooks"), against real processes and a real
 * PostgreSQL: a standby never delivers, and after the owner is SIGKILLed with deliveries pending the new owner
 * delivers them, signed as the old owner would have, and does not deliver again what the old owner had delivered.
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

t.test('webhooks across a SIGKILL takeover: the standby never delivers, the new owner delivers what was pending', async (t) => {
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
  nodes.push(await startNode(database.url, 'node-2', webhookEnv))
  const standby = nodes[1]

  // Delivered by the owner while the standby follows: exactly once (the standby holds it too, and does not deliver it).
  t.equal((await request(owner.process.baseUrl, key, 'POST', '/v2/entries', sale('before'))).status, 201)
  await receiver.waitFor(1, 10_000, accepted('before'))
  await sleep(2_000)
  t.equal(receiver.received.filter(accepted('before')).length, 1, 'delivered once while the owner lives: the standby did not deliver it')

  // Pending when the owner dies: the receiver refuses until the new owner serves.
  accepting = false
  for (const description of ['pending-1', 'pending-2']) t.equal((await request(standby.process.baseUrl, key, 'POST', '/v2/entries', sale(description))).status, 201, `${description} written (through the standby)`)
  // One subscription's events go in order: the first is retried (refused) while the second waits behind it.
  const tried = await waitFor(async () => receiver.received.filter((request) => request.body.includes('pending-1')).length >= 2, 10_000)
  t.ok(tried, 'the owner tried to deliver the first and tried again (refused)')
  owner.process.child.kill('SIGKILL')
  await owner.process.exited
  accepting = true
  const taken = await waitFor(async () => (await request(standby.process.baseUrl, key, 'GET', '/v2/accounts')).status === 200, 20_000)
  t.ok(taken, 'the standby took the shard over')
  for (const description of ['pending-1', 'pending-2']) {
    const delivered = await waitFor(async () => receiver.received.some(accepted(description)), 20_000)
    t.ok(delivered, `${description} delivered by the new owner`)
    const deliveries = receiver.received.filter(accepted(description))
    t.ok(deliveries.length >= 1 && deliveries.every((delivery) => verifySignature(secret, delivery)), 'signed with the subscription\'s secret')
    const ids = new Set(receiver.received.filter((request) => request.body.includes(description)).map((request) => request.headers['webhook-id']))
    t.equal(ids.size, 1, 'every attempt of the event carries the same webhook-id, the old owner\'s and the new one\'s')
  }
  // The old owner told the standby what it had delivered (webhook_done): not delivered again.
  await sleep(1_000)
  t.equal(receiver.received.filter(accepted('before')).length, 1, 'an event the old owner had delivered is not delivered again by the new one')
})
