/**
 * A statement imported again is answered as its first import answered (issue 24, item 11): the windows
 * as they were right after that import, however they changed since (write-offs, matches, postings into
 * their periods, more lines), with Replayed: true; and a known statement in a file that also opens a new
 * window is answered the same way.
 */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { raiseLimits } from '../support/api.ts'
import { call, startTestService, type Reply } from '../support/service.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')

const file = fs.readFileSync(path.resolve(import.meta.dirname, '../fixtures/statements/camt053/v02-jpy-two-statements-crlf.xml'))

function importFile(body: Buffer): Promise<Reply> {
  return call(baseUrl, 'POST', '/v2/statements', { key, raw: body, headers: { 'content-type': 'application/xml' } })
}

async function ok(reply: Promise<Reply>, status: number, what: string): Promise<Reply> {
  const answered = await reply
  if (answered.status !== status) throw new Error(`${what}: ${answered.status} ${answered.text}`)
  return answered
}

for (const [name, currency, external] of [['assets:bank:jpy', 'JPY', '1234567'], ['income:jpy', 'JPY', 'INCOME-1']] as const) {
  await ok(call(baseUrl, 'POST', '/v2/accounts', { key, body: { name, currency, external_id: external } }), 201, name)
}

t.test('import, change both windows, import again: the first answer, byte for byte', async (t) => {
  const first = await ok(importFile(file), 201, 'first import')
  const [november3, november5] = first.body.data.map((window: { id: string }) => window.id)
  await ok(call(baseUrl, 'POST', `/v2/reconciliations/${november3}/matches`, { key, body: { statement_lines: ['l1'], strategy: 'write_off', reason: 'booked elsewhere' } }), 200, 'write-off')
  await ok(call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'assets:bank:jpy', amount: 150_000 }, { account: 'income:jpy', amount: -150_000 }], effective_at: '2026-11-03T12:00:00+09:00' } }), 201, 'posting into the first period')
  await ok(call(baseUrl, 'POST', `/v2/reconciliations/${november5}/lines`, { key, body: { lines: [{ amount: 5, date: '2026-11-05' }] } }), 201, 'a line more')
  const entry = await ok(call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'assets:bank:jpy', amount: 5 }, { account: 'income:jpy', amount: -5 }], effective_at: '2026-11-05T12:00:00+09:00' } }), 201, 'posting into the second period')
  const lines = (await call(baseUrl, 'GET', `/v2/reconciliations/${november5}/lines?limit=1000`, { key })).body.data
  const added = lines.find((line: { amount: number }) => line.amount === 5).id
  await ok(call(baseUrl, 'POST', `/v2/reconciliations/${november5}/matches`, { key, body: { statement_lines: [added], entries: [entry.body.id], strategy: 'manual' } }), 200, 'match')
  const now = await Promise.all([november3, november5].map((id) => call(baseUrl, 'GET', `/v2/reconciliations/${id}`, { key })))
  t.not(JSON.stringify(now.map((reply) => reply.body)), JSON.stringify(first.body.data), 'the windows did change')

  const again = await ok(importFile(file), 201, 'second import')
  t.equal(again.headers.get('replayed'), 'true', 'Replayed: true')
  t.equal(again.text, first.text, 'the first answer, byte for byte')
  t.same((await call(baseUrl, 'GET', `/v2/reconciliations/${november3}`, { key })).body, now[0].body, 'and the windows as they are: nothing imported twice')

  // A file holding the known second statement and a corrected first one (its window abandoned first).
  await ok(call(baseUrl, 'PATCH', `/v2/reconciliations/${november3}`, { key, body: { state: 'abandoned', reason: 'wrong text' } }), 200, 'abandon')
  const corrected = Buffer.from(file.toString('latin1').replace('<AddtlNtryInf>Rent November</AddtlNtryInf>', '<AddtlNtryInf>Rent Nov.</AddtlNtryInf>'), 'latin1')
  const mixed = await ok(importFile(corrected), 201, 'corrected import')
  t.equal(mixed.headers.get('replayed'), null, 'a window was opened: not a replay')
  t.same(mixed.body.data[1], first.body.data[1], 'the known statement answered as its first import answered')
})
