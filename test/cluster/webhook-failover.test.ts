/**
 * @module Webhook deliveries across a takeover (docs/CLUSTER.md, "Webhooks"), against real processes and a real
 * PostgreSQL: a standby never delivers, and after the owner is SIGKILLed with deliveries pending the new owner
 * delivers them, signed as the old owner would have, and does not deliver again what the old owner had delivered;
 * also when the new owner started after the events were written (it read those records from the database at its
 * start, before its memory was built, and must keep their outbox items as it does for records it follows).
 */

import t, { type Test } from 'tap'
import { killNodes, request, resetDatabase, startNode, testDatabase, waitFor, type ClusterNode } from '../support/cluster-nodes.ts'
import { startReceiver, verifySignature, type Received, type Receiver } from '../support/webhook-receiver.ts'

t.setTimeout(600_000)

const database = testDatabase(t)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Retries within a second or so, so a pending delivery is tried again soon after the receiver accepts. */
const webhookEnv = { WEBHOOK_BACKOFF_BASE_MS: '50', WEBHOOK_BACKOFF_CAP_MS: '300', WEBHOOK_TIMEOUT_MS: '2000' }

const sale = (description: string) => ({ lines: [{ account: 'assets:bank', amount: 100 }, { account: 'income:sales', amount: -100 }], description })

const accepted = (description: string) => (request: Received) => request.status === 200 && request.body.includes(`"description":${JSON.stringify(description)}`)

interface Setting {
  readonly receiver: Receiver
  readonly nodes: ClusterNode[]
  readonly key: string
  readonly secret: string
  /** Whether the receiver answers 200 (else 503). */
  accepting: boolean
}

/** A receiver, an empty database, node-1 serving the shard with two accounts and a subscription to entry.posted. */
async function ownerWithSubscription(t: Test): Promise<Setting> {
  const receiver = await startReceiver()
  t.teardown(() => receiver.close())
  await resetDatabase(database.db)
  const nodes: ClusterNode[] = []
  t.teardown(() => killNodes(nodes))
  nodes.push(await startNode(database.url, 'node-1', webhookEnv))
  const key = nodes[0].process.apiKey!
  for (const name of ['assets:bank', 'income:sales']) t.equal((await request(nodes[0].process.baseUrl, key, 'POST', '/v2/accounts', { name })).status, 201)
  const subscription = await request(nodes[0].process.baseUrl, key, 'POST', '/v2/webhooks', { url: receiver.url, events: ['entry.posted'] })
  t.equal(subscription.status, 201)
  const setting: Setting = { receiver, nodes, key, secret: subscription.body.secret, accepting: true }
  receiver.respond = () => (setting.accepting ? 200 : 503)
  return setting
}

/** Two events written while the receiver refuses (through `via`), once the owner has tried the first twice. */
async function writePending(t: Test, setting: Setting, via: ClusterNode): Promise<void> {
  setting.accepting = false
  for (const description of ['pending-1', 'pending-2']) t.equal((await request(via.process.baseUrl, setting.key, 'POST', '/v2/entries', sale(description))).status, 201, `${description} written`)
  // One subscription's events go in order: the first is retried (refused) while the second waits behind it.
  const tried = await waitFor(async () => setting.receiver.received.filter((request) => request.body.includes('pending-1')).length >= 2, 10_000)
  t.ok(tried, 'the owner tried to deliver the first and tried again (refused)')
}

/** The owner SIGKILLed, the receiver accepting: the standby takes over and delivers both pending events, not 'before' again. */
async function takeOverAndDeliver(t: Test, setting: Setting, standby: ClusterNode): Promise<void> {
  const { receiver, nodes, key, secret } = setting
  nodes[0].process.child.kill('SIGKILL')
  await nodes[0].process.exited
  setting.accepting = true
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
}

t.test('webhooks across a SIGKILL takeover: the standby never delivers, the new owner delivers what was pending', async (t) => {
  const setting = await ownerWithSubscription(t)
  const [owner] = setting.nodes
  setting.nodes.push(await startNode(database.url, 'node-2', webhookEnv))
  const standby = setting.nodes[1]
  // Delivered by the owner while the standby follows: exactly once (the standby holds it too, and does not deliver it).
  t.equal((await request(owner.process.baseUrl, setting.key, 'POST', '/v2/entries', sale('before'))).status, 201)
  await setting.receiver.waitFor(1, 10_000, accepted('before'))
  await sleep(2_000)
  t.equal(setting.receiver.received.filter(accepted('before')).length, 1, 'delivered once while the owner lives: the standby did not deliver it')
  // Pending when the owner dies, written through the standby (forwarded to the owner).
  await writePending(t, setting, standby)
  await takeOverAndDeliver(t, setting, standby)
})

t.test('a standby started after events were written delivers the pending ones after a takeover', async (t) => {
  const setting = await ownerWithSubscription(t)
  const [owner] = setting.nodes
  // All three written while only the owner runs: the second node reads them from the database at its start.
  t.equal((await request(owner.process.baseUrl, setting.key, 'POST', '/v2/entries', sale('before'))).status, 201)
  await setting.receiver.waitFor(1, 10_000, accepted('before'))
  await writePending(t, setting, owner)
  setting.nodes.push(await startNode(database.url, 'node-2', webhookEnv))
  // The owner tells what it finished once a second; the standby reads it once a second.
  await sleep(2_500)
  await takeOverAndDeliver(t, setting, setting.nodes[1])
})
