/** trueup/client (src/client): requests, subscriptions with callbacks, a wrong key, and reconnect with resubscribe across a restart. */
import t from 'tap'
import { connect, type Update } from '../../src/client/index.ts'
import { createAccount, raiseLimits, sleep } from '../support/api.ts'
import { freePort } from '../support/process.ts'
import { call, startTestService, type TestService } from '../support/service.ts'
import { streamUrl } from '../support/ws.ts'
import { WebSocket } from 'ws'

const port = await freePort()
let service: TestService = await startTestService({ env: { PORT: String(port) } })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')
const bank = await createAccount(baseUrl, key, 'assets:bank')
await createAccount(baseUrl, key, 'income:sales')
const sale = (amount: number) => ({ lines: [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }] })
// Node 20 has no global WebSocket: the client is given the `ws` package's (on Node 22 it would find its own).
const options = { key, WebSocket }

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadlineMs = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadlineMs) throw new Error(`timed out waiting for ${what}`)
    await sleep(20)
  }
}

t.test('request and subscribe', async (t) => {
  const client = await connect(streamUrl(baseUrl), options)
  t.teardown(() => client.close())
  const posted = await client.request('POST', '/v2/entries', sale(5))
  t.equal(posted.status, 201)
  t.match(posted.body, { id: /^ent_/ })
  const refused = await client.request('POST', '/v2/entries', { lines: [] })
  t.equal(refused.status, 400, 'an error status is a response, not a rejection')
  const updates: Update[] = []
  const subscription = await client.subscribe({ accounts: ['assets:bank'] }, (update) => updates.push(update))
  t.same(subscription.accounts, [bank.id], 'names resolved to ids')
  await client.request('POST', '/v2/entries', sale(7))
  await until(() => updates.length === 2, 'two updates')
  t.match(updates, [{ type: 'balance', data: { balance: 5 } }, { type: 'balance', data: { balance: 12 } }], 'the current value, then the change')
  await subscription.unsubscribe()
  await client.request('POST', '/v2/entries', sale(1))
  await sleep(100)
  t.equal(updates.length, 2, 'no update after unsubscribe')
  await t.rejects(client.subscribe({ reconciliations: ['rec_nope'] }, () => {}), { code: 'not_found' })
})

t.test('a wrong key: connect rejects', async (t) => {
  await t.rejects(connect(streamUrl(baseUrl), { ...options, key: 'tu_wrong', reconnect: false }), { code: 'unauthenticated' })
})

t.test('with the ws package the key goes in the upgrade: frames over 4 KiB pass, a wrong key is final', async (t) => {
  const client = await connect(streamUrl(baseUrl), options)
  t.teardown(() => client.close())
  const entries = Array.from({ length: 60 }, (_, index) => ({ ...sale(index + 1), description: `bulk ${index} ${'x'.repeat(40)}` }))
  t.ok(JSON.stringify(entries).length > 4 * 1024, 'the request is over the first-message bound')
  const posted = await client.request('POST', '/v2/entries/batch', { entries })
  t.equal(posted.status, 201, 'answered, the socket authenticated by its header')
  await t.rejects(connect(streamUrl(baseUrl), { ...options, key: 'tu_wrong' }), { code: 'unauthenticated' }, 'a refused upgrade (401) is final, as 4401 is')
})

t.test('reconnect and resubscribe across a restart', async (t) => {
  let reconnects = 0
  const client = await connect(streamUrl(baseUrl), { ...options, reconnectDelayMaxMs: 200, onReconnect: () => reconnects++ })
  t.teardown(() => client.close())
  const balances: number[] = []
  await client.subscribe({ accounts: [bank.id] }, (update) => { if (update.type === 'balance') balances.push(update.data.balance) })
  await until(() => balances.length === 1, 'the current value')
  await service.stop()
  await t.rejects(client.request('GET', '/v2/accounts'), { code: 'unavailable' }, 'a request while it is down fails: unavailable')
  service = await startTestService({ dataDir: service.dataDir, apiKey: key, env: { PORT: String(port) } })
  await until(() => reconnects === 1, 'the reconnect')
  await until(() => balances.length === 2, 'the value again after resubscribing')
  await call(service.baseUrl, 'POST', '/v2/entries', { key, body: sale(100) })
  await until(() => balances.length === 3, 'an update after the reconnect')
  t.equal(balances[2], balances[1] + 100)
  t.equal((await client.request('GET', `/v2/accounts/${bank.id}/balance`)).body.balance, balances[2], 'requests work again')
})
