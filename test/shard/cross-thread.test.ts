/**
 * The hop between the main thread and the shards' threads (SHARDS=2, in process): what one turn of the event loop
 * posts to a thread leaves as one postMessage (src/shard/port-batch.ts), counted in /metrics as
 * trueup_shard_messages_total and trueup_shard_posts_total; every operation still gets its own answer.
 */
import t from 'tap'
import { call, startTestService } from '../support/service.ts'

/** The value of one labelled sample of the Prometheus text, or null. */
function sample(text: string, name: string, direction: string): number | null {
  const line = text.split('\n').find((each) => each.startsWith(`${name}{direction="${direction}"}`))
  return line === undefined ? null : Number(line.slice(line.lastIndexOf(' ') + 1))
}

t.test('operations of one turn cross to a shard in one postMessage, and their replies come back batched', async (t) => {
  const service = await startTestService({ env: { SHARDS: '2' } })
  t.teardown(() => service.destroy())
  const key = service.apiKey
  for (const name of ['assets:bank', 'income:sales']) t.equal((await call(service.baseUrl, 'POST', '/v2/accounts', { key, body: { name } })).status, 201)
  const count = 40
  const posted = await Promise.all(Array.from({ length: count }, (_, index) => call(service.baseUrl, 'POST', '/v2/entries', {
    key, body: { lines: [{ account: 'assets:bank', amount: index + 1 }, { account: 'income:sales', amount: -(index + 1) }] },
  })))
  t.ok(posted.every((answer) => answer.status === 201), 'every posting answered 201')
  t.same(new Set(posted.map((answer) => answer.body.id)).size, count, 'each its own entry')
  const balance = await call(service.baseUrl, 'GET', '/v2/accounts/assets%3Abank/balance', { key })
  t.equal(balance.body.balance, (count * (count + 1)) / 2, 'every posting applied once')
  const metrics = (await call(service.baseUrl, 'GET', '/metrics')).text
  const messages = { to: sample(metrics, 'trueup_shard_messages_total', 'to_shards'), from: sample(metrics, 'trueup_shard_messages_total', 'from_shards') }
  const posts = { to: sample(metrics, 'trueup_shard_posts_total', 'to_shards'), from: sample(metrics, 'trueup_shard_posts_total', 'from_shards') }
  t.ok(messages.to !== null && messages.to >= count + 3, `at least one message to a shard per operation (${messages.to})`)
  t.ok(messages.from !== null && messages.from >= count + 3, `at least one message back per reply (${messages.from})`)
  t.ok(posts.to !== null && posts.from !== null, 'the postMessage calls counted')
  t.ok(posts.to! + posts.from! < messages.to! + messages.from!, `fewer postMessage calls (${posts.to} + ${posts.from}) than messages (${messages.to} + ${messages.from})`)
})

t.test('with one shard there is no hop to count', async (t) => {
  const service = await startTestService({ env: { SHARDS: '1' } })
  t.teardown(() => service.destroy())
  const metrics = (await call(service.baseUrl, 'GET', '/metrics')).text
  t.equal(sample(metrics, 'trueup_shard_messages_total', 'to_shards'), null)
})
