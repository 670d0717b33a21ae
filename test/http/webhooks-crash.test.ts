/**
 * Webhooks survive kill -9 (docs/RELIABILITY.md, 8) against a real process: entries are posted to a subscribed
 * workspace while a slow receiver takes the deliveries one by one; the process is killed mid-load and
 * started again on the same data dir. Every acknowledged entry's event must then arrive (at least once),
 * with one webhook-id per event across the crash, in log order, and no event for a command the log lost.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { killHard, startProcess, type RunningProcess, requestJson as request } from '../support/process.ts'
import { startReceiver, verifySignature } from '../support/webhook-receiver.ts'

const adminToken = 'x'
const env = { WEBHOOK_BACKOFF_BASE_MS: '20', WEBHOOK_BACKOFF_CAP_MS: '100' }
const writersCount = 4
const postsPerWriterMax = 200
const killAfterMs = 600
const deliveryWaitMs = 30_000

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-webhooks-crash-'))
const receiver = await startReceiver()
// Slow enough that most events are still in the outbox when the process dies.
receiver.delayMs = 25
const live: RunningProcess[] = []
t.teardown(async () => {
  for (const running of live) await killHard(running)
  await receiver.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

t.test('kill -9 mid-load: every acknowledged event is delivered after the restart, ids stable, in order', async (t) => {
  const first = await startProcess({ dataDir, adminToken, env })
  live.push(first)
  const key = first.apiKey!
  t.ok(key, 'the first start printed a key')
  for (const name of ['assets:bank', 'income:sales']) t.equal((await request(first.baseUrl, key, 'POST', '/v2/accounts', { name })).status, 201)
  const hook = await request(first.baseUrl, key, 'POST', '/v2/webhooks', { url: receiver.url, events: ['entry.posted'] })
  t.equal(hook.status, 201)

  const acknowledged: string[] = []
  let killed = false
  const writer = async () => {
    for (let i = 0; i < postsPerWriterMax && !killed; i++) {
      try {
        const reply = await request(first.baseUrl, key, 'POST', '/v2/entries', { lines: [{ account: 'assets:bank', amount: i + 1 }, { account: 'income:sales', amount: -(i + 1) }] })
        if (reply.status === 201) acknowledged.push(reply.body.id)
      } catch {
        return
      }
    }
  }
  const killer = (async () => {
    await new Promise((resolve) => setTimeout(resolve, killAfterMs))
    killed = true
    await killHard(first)
  })()
  await Promise.all([...Array.from({ length: writersCount }, writer), killer])
  const receivedBeforeKill = receiver.received.length
  t.ok(acknowledged.length > 0, `${acknowledged.length} entries acknowledged before the kill`)
  t.ok(receivedBeforeKill < acknowledged.length, `only ${receivedBeforeKill} deliveries before the kill: the rest must come from the outbox after the restart`)

  const second = await startProcess({ dataDir, adminToken, env })
  live.push(second)
  const deadlineMs = Date.now() + deliveryWaitMs
  const delivered = () => new Set(receiver.received.filter((received) => received.status === 200).map((received) => received.json.data.id))
  while (!acknowledged.every((id) => delivered().has(id)) && Date.now() < deadlineMs) await new Promise((resolve) => setTimeout(resolve, 50))
  const missing = acknowledged.filter((id) => !delivered().has(id))
  t.same(missing, [], 'every acknowledged entry was delivered')

  const idOfEntry = new Map<string, string>()
  let unstable = 0
  let unsigned = 0
  for (const received of receiver.received) {
    if (!verifySignature(hook.body.secret, received)) unsigned++
    const entryId = received.json.data.id
    const known = idOfEntry.get(entryId)
    if (known !== undefined && known !== received.headers['webhook-id']) unstable++
    idOfEntry.set(entryId, received.headers['webhook-id'] as string)
  }
  t.equal(unsigned, 0, 'every request, before and after the crash, verifies')
  t.equal(unstable, 0, 'a redelivered event carries the webhook-id it had before')
  const webhookIds = [...idOfEntry.values()]
  t.equal(new Set(webhookIds).size, webhookIds.length, 'distinct events, distinct ids')

  const firstSeen: string[] = []
  for (const received of receiver.received) if (!firstSeen.includes(received.json.data.id)) firstSeen.push(received.json.data.id)
  t.same(firstSeen, [...firstSeen].sort(), 'delivered in log order (entry ids sort in creation order)')
  let phantom = 0
  for (const entryId of firstSeen) if ((await request(second.baseUrl, key, 'GET', `/v2/entries/${entryId}`)).status !== 200) phantom++
  t.equal(phantom, 0, 'no event for a command the log does not hold')

  const rows = await request(second.baseUrl, key, 'GET', `/v2/webhooks/${hook.body.id}/deliveries?limit=1000`)
  t.equal(rows.status, 200)
  const byEvent = new Map(rows.body.data.map((row: any) => [row.event_id, row]))
  t.ok(webhookIds.every((id) => byEvent.has(id)), 'the deliveries route lists every delivered event')
  await killHard(second)
})
