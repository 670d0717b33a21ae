/**
 * Live updates (docs/API.md, WebSocket API and live updates): what changes a window (a posting into its period, lines, matches, a
 * transition) or a balance pushes the new value after the commit; updates of one window arrive in commit
 * order; a reader that stops reading keeps the server's memory bounded (coalescing), then catches up.
 */
import t from 'tap'
import { createAccount, raiseLimits, sleep } from '../support/api.ts'
import { call, startTestService } from '../support/service.ts'
import { openSocket, type RawSocket } from '../support/ws.ts'
import { coalesceAboveBytes } from '../../src/stream/session.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')
const bank = await createAccount(baseUrl, key, 'assets:bank')
await createAccount(baseUrl, key, 'income:sales')
const inPeriod = '2026-11-10T12:00:00Z'
const sale = (amount: number) => ({ lines: [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }], effective_at: inPeriod })

async function subscribed(topics: object): Promise<RawSocket> {
  const socket = await openSocket(baseUrl, key)
  socket.send({ type: 'subscribe', id: 'sub', ...topics })
  await socket.next((message) => message.type === 'subscribed')
  return socket
}

t.test('postings, lines, matches and transitions each push the window; postings push the balance', async (t) => {
  const opened = await call(baseUrl, 'POST', '/v2/reconciliations', { key, body: { label: 'kinds', accounts: ['assets:bank'], window: { from: '2026-11-01', to: '2026-11-20' }, claimed_movement: 50 } })
  const id = opened.body.id
  const socket = await subscribed({ reconciliations: [id], accounts: ['assets:bank'] })
  const window = () => socket.next((message) => message.type === 'reconciliation')
  t.match(await window(), { data: { id, derived_movement: 0, residual: 50 } }, 'the current value first')
  t.match(await socket.next((message) => message.type === 'balance'), { data: { account: bank.id, balance: 0 } })
  const entry = (await call(baseUrl, 'POST', '/v2/entries', { key, body: sale(50) })).body
  t.match(await window(), { data: { derived_movement: 50, residual: 0, state: 'open' } }, 'a posting into the period')
  t.match(await socket.next((message) => message.type === 'balance'), { data: { account: bank.id, name: 'assets:bank', balance: 50, at: /Z$/ } }, 'the balance')
  await call(baseUrl, 'POST', '/v2/entries', { key, body: { ...sale(7), effective_at: '2026-10-01T00:00:00Z' } })
  t.match(await socket.next((message) => message.type === 'balance'), { data: { balance: 57 } }, 'a posting outside the period moves the balance')
  const lines = await call(baseUrl, 'POST', `/v2/reconciliations/${id}/lines`, { key, body: { lines: [{ amount: 50, date: '2026-11-10' }] } })
  t.match(await window(), { data: { lines_count: 1, unmatched_lines_count: 1 } }, 'lines (and not the October posting)')
  const match = await call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches`, { key, body: { statement_lines: [lines.body.lines[0].id], entries: [entry.id], strategy: 'amount_and_date' } })
  t.equal(match.status, 200)
  t.match(await window(), { data: { matched_count: 1, state: 'balanced' } }, 'a match')
  await call(baseUrl, 'PATCH', `/v2/reconciliations/${id}`, { key, body: { state: 'closed' } })
  t.match(await window(), { data: { state: 'closed' } }, 'a transition')
  socket.socket.close()
})

t.test('a match batch pushes the window (issue 24, item 7), a rename pushes the windows naming the account', async (t) => {
  const opened = await call(baseUrl, 'POST', '/v2/reconciliations', { key, body: { label: 'batch', accounts: ['assets:bank'], window: { from: '2026-10-01', to: '2026-10-31' }, claimed_movement: 9 } })
  const id = opened.body.id
  const entry = (await call(baseUrl, 'POST', '/v2/entries', { key, body: { ...sale(9), effective_at: '2026-10-03T00:00:00Z' } })).body
  await call(baseUrl, 'POST', `/v2/reconciliations/${id}/lines`, { key, body: { lines: [{ amount: 9, date: '2026-10-03' }, { amount: 2, date: '2026-10-04' }] } })
  const socket = await subscribed({ reconciliations: [id] })
  const window = () => socket.next((message) => message.type === 'reconciliation')
  t.match(await window(), { data: { id, matched_count: 0, unmatched_lines_count: 2 } }, 'the current value first')
  const batch = await call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches/batch`, { key, body: { matches: [
    { statement_lines: ['l1'], entries: [entry.id], strategy: 'amount_and_date' },
    { statement_lines: ['l2'], strategy: 'write_off', reason: 'fee' },
  ] } })
  t.equal(batch.status, 200, batch.text)
  t.match(await window(), { data: { id, matched_count: 2, unmatched_lines_count: 0 } }, 'the batch, once, with both matches')
  const renamed = await call(baseUrl, 'PATCH', `/v2/accounts/${bank.id}`, { key, body: { name: 'assets:checking' } })
  t.equal(renamed.status, 200, renamed.text)
  t.match(await window(), { data: { id, accounts: ['assets:checking'] } }, 'the rename')
  t.equal((await call(baseUrl, 'PATCH', `/v2/accounts/${bank.id}`, { key, body: { name: 'assets:bank' } })).status, 200)
  await window()
  socket.socket.close()
})

t.test('updates of one window arrive in commit order', async (t) => {
  const opened = await call(baseUrl, 'POST', '/v2/reconciliations', { key, body: { label: 'order', accounts: ['assets:bank'], window: { from: '2026-11-02', to: '2026-11-21' }, claimed_movement: 0 } })
  const socket = await subscribed({ reconciliations: [opened.body.id] })
  const first = await socket.next((message) => message.type === 'reconciliation')
  const writers = 16
  const postsPerWriter = 20
  const writer = (index: number) => (async () => {
    for (let post = 0; post < postsPerWriter; post++) {
      // HTTP and the socket's own requests interleave in the log: every commit adds 1 to the window.
      if (index % 2 === 0) await call(baseUrl, 'POST', '/v2/entries', { key, body: sale(1) })
      else socket.send({ type: 'request', id: `w${index}-${post}`, method: 'POST', path: '/v2/entries', body: sale(1) })
    }
  })()
  await Promise.all(Array.from({ length: writers }, (_, index) => writer(index)))
  const total = first.data.derived_movement + writers * postsPerWriter
  await socket.next((message) => message.type === 'reconciliation' && message.data.derived_movement === total, 10_000)
  const seen = socket.messages.filter((message) => message.type === 'reconciliation').map((message) => message.data.derived_movement)
  t.same(seen, Array.from({ length: seen.length }, (_, index) => first.data.derived_movement + index), 'one update per commit, each 1 more than the one before')
  t.equal(seen.length, writers * postsPerWriter + 1)
  socket.socket.close()
})

t.test('a reader that stops reading: the server coalesces and its buffer stays bounded; on resuming it gets the latest', async (t) => {
  const accountsCount = 300
  const names = Array.from({ length: accountsCount }, (_, index) => `assets:${'slow'.repeat(45)}${String(index).padStart(4, '0')}`)
  for (const name of names) await createAccount(baseUrl, key, name)
  await createAccount(baseUrl, key, 'equity:source')
  const socket = await subscribed({ accounts: names })
  // The server's session, on whichever thread serves it (EDGE_THREADS=1), as it is now.
  const session = async () => (await service.service.edgeCounts()).sessions.find((each) => each.topicsCount === accountsCount)!
  t.ok(await session(), 'the server\'s session')
  await socket.next((message) => message.type === 'balance' && message.data.name === names.at(-1))
  socket.socket.pause()
  const batch = { entries: names.map((name) => ({ lines: [{ account: name, amount: 1 }, { account: 'equity:source', amount: -1 }] })) }
  let batches = 0
  let bufferedMaxBytes = 0
  let pendingMax = 0
  const deadlineMs = Date.now() + 60_000
  let now = await session()
  while ((now.coalescedCount === 0 || batches < 20) && Date.now() < deadlineMs) {
    const reply = await call(baseUrl, 'POST', '/v2/entries/batch', { key, body: batch })
    if (reply.status !== 201) throw new Error(`batch: ${reply.status} ${reply.text.slice(0, 200)}`)
    batches++
    now = await session()
    bufferedMaxBytes = Math.max(bufferedMaxBytes, now.bufferedBytes)
    pendingMax = Math.max(pendingMax, now.pendingCount)
  }
  t.ok(now.coalescedCount > 0, `updates were coalesced (${now.coalescedCount} after ${batches} batches)`)
  t.ok(bufferedMaxBytes <= coalesceAboveBytes + 64 * 1024, `the send buffer stayed near 1 MiB (at most ${bufferedMaxBytes} bytes)`)
  t.ok(pendingMax <= accountsCount, `at most one waiting update per account (${pendingMax})`)
  socket.socket.resume()
  const last = names.at(-1)!
  await socket.next((message) => message.type === 'balance' && message.data.name === last && message.data.balance === batches, 30_000)
  await sleep(100)
  const latest = new Map<string, number>()
  for (const message of socket.messages) if (message.type === 'balance') latest.set(message.data.name, message.data.balance)
  t.same(names.filter((name) => latest.get(name) !== batches), [], 'every account\'s latest balance arrived')
  const balances = socket.messages.filter((message) => message.type === 'balance').length
  t.equal(balances, accountsCount + batches * accountsCount - (await session()).coalescedCount, 'the current values, then every update but those coalesced away')
  socket.socket.close()
})
