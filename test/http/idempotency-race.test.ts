/**
 * Concurrent identical requests with one Idempotency-Key produce one effect (docs/API.md, "Retries and
 * Idempotency-Key"), also when the body is read off the event loop (a statement file in the worker thread):
 * the key is looked up again in the actor's turn that applies the command.
 */
import t, { type Test } from 'tap'
import { createAccount, listAll, raiseLimits } from '../support/api.ts'
import { call, startTestService, type Reply } from '../support/service.ts'
import { writeCamt053 } from '../support/statement-writers.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')

/** Exactly one first answer, the others replays of it, byte for byte. */
function assertOneEffect(t: Test, replies: readonly Reply[], status: number): void {
  t.same(replies.map((reply) => reply.status), replies.map(() => status), `every answer is ${status}`)
  const firsts = replies.filter((reply) => reply.headers.get('replayed') === null)
  t.equal(firsts.length, 1, 'one request carried out')
  t.equal(replies.filter((reply) => reply.headers.get('replayed') === 'true').length, replies.length - 1, 'the others replayed')
  for (const reply of replies) t.equal(reply.text, firsts[0]?.text, 'the same body')
}

t.test('three identical keyed statement files on /lines, read in the worker at once: one effect', async (t) => {
  const account = await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:bank:race', currency: 'EUR', external_id: 'DE00RACE' } })
  t.equal(account.status, 201)
  const opened = await call(baseUrl, 'POST', '/v2/reconciliations', { key, body: { label: 'race', accounts: ['assets:bank:race'], window: { from: '2026-10-01', to: '2026-10-31' }, claimed_movement: 0 } })
  t.equal(opened.status, 201)
  const entries = Array.from({ length: 2400 }, (_, index) => ({
    amount: index % 2 === 0 ? 700 : -700, mark: index % 2 === 0 ? 'credit' as const : 'debit' as const, reversal: false,
    date: '2026-10-15', value_date: null, reference: `RACE-${index}`, description: `Payment number ${index} of the race test`, counterparty: null,
  }))
  const file = writeCamt053([{
    format: 'camt053', statement_ref: 'RACE/1', account: 'DE00RACE', currency: 'EUR', opening: { amount: 0, date: '2026-09-30' },
    closing: { amount: 0, date: '2026-10-31' }, period: { from: '2026-10-01', to: '2026-10-31' }, entries,
  }])
  t.ok(Buffer.byteLength(file) > 256 * 1024, `${Buffer.byteLength(file)} bytes: read in the worker thread`)
  const send = () => call(baseUrl, 'POST', `/v2/reconciliations/${opened.body.id}/lines`, { key, raw: file, headers: { 'content-type': 'application/xml', 'idempotency-key': 'race-lines-1' } })
  const replies = await Promise.all([send(), send(), send()])
  assertOneEffect(t, replies, 201)
  const lines = (await listAll(baseUrl, key, `/v2/reconciliations/${opened.body.id}/lines`, 1000)).items
  t.equal(lines.length, 2400, 'the window holds the lines once')
})

t.test('identical keyed postings sent at once: one entry, the others replay it', async (t) => {
  await createAccount(baseUrl, key, 'assets:cash')
  await createAccount(baseUrl, key, 'income:sales')
  const body = { lines: [{ account: 'assets:cash', amount: 4242 }, { account: 'income:sales', amount: -4242 }], description: 'race' }
  const replies = await Promise.all(Array.from({ length: 8 }, () => call(baseUrl, 'POST', '/v2/entries', { key, body, headers: { 'idempotency-key': 'race-entry-1' } })))
  assertOneEffect(t, replies, 201)
  const entries = (await listAll(baseUrl, key, '/v2/entries', 1000)).items.filter((entry: any) => entry.description === 'race')
  t.equal(entries.length, 1, 'one entry posted')
})

t.test('identical keyed statement files on POST /v2/statements at once (imported in slices): one effect', async (t) => {
  t.equal((await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:bank:race2', currency: 'EUR', external_id: 'DE00RACE2' } })).status, 201)
  const statements = Array.from({ length: 300 }, (_, day) => {
    const date = new Date(Date.parse('2020-01-01T00:00:00.000Z') + day * 86_400_000).toISOString().slice(0, 10)
    return { format: 'camt053' as const, statement_ref: `RACE2-${day}`, account: 'DE00RACE2', currency: 'EUR', opening: { amount: 0, date }, closing: { amount: 0, date }, period: { from: date, to: date }, entries: [] }
  })
  const file = writeCamt053(statements)
  const send = () => call(baseUrl, 'POST', '/v2/statements', { key, raw: file, headers: { 'content-type': 'application/xml', 'idempotency-key': 'race-import-1' } })
  const replies = await Promise.all([send(), send(), send()])
  assertOneEffect(t, replies, 201)
  const windows = (await listAll(baseUrl, key, '/v2/reconciliations', 1000)).items.filter((window: any) => window.accounts[0] === 'assets:bank:race2')
  t.equal(windows.length, 300, 'each statement opened one window')
})
