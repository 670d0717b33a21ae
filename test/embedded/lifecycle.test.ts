/** The embedded Ledger runs the lifecycle HTTP runs (issue 13.1): the same stage order, so the same answer to the same mistake. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { stageNames } from '../../src/api/lifecycle.ts'
import { Ledger, TrueupError } from '../../src/index.ts'
import { call, startTestService } from '../support/service.ts'

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (error instanceof TrueupError) return error.code
    throw error
  }
  return 'accepted'
}

const lines = (amount: number) => [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }]

t.test('a reused Idempotency-Key with an invalid body: 409 in-process as over HTTP (idempotency answers before the schema)', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-lifecycle-'))
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))
  const ledger = await Ledger.open({ dataDir })
  t.teardown(() => ledger.close())
  await ledger.createAccount({ name: 'assets:bank' })
  await ledger.createAccount({ name: 'income:sales' })
  await ledger.postEntry({ lines: lines(5) }, { idempotencyKey: 'k-1' })
  const invalid = { lines: [{ account: 'assets:bank', amount: 1.5 }] } as never
  t.equal(await codeOf(ledger.postEntry(invalid, { idempotencyKey: 'k-1' })), 'idempotency_conflict', 'embedded')
  t.equal(await codeOf(ledger.postEntry(invalid, { idempotencyKey: 'k-2' })), 'request_invalid', 'a fresh key: the schema answers')
  t.equal(await codeOf(ledger.postEntry({ lines: lines(6) }, { idempotencyKey: ' bad' })), 'request_invalid', 'a malformed key is a schema failure')

  const service = await startTestService()
  t.teardown(() => service.destroy())
  const { baseUrl, apiKey: key } = service
  await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:bank' } })
  await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'income:sales' } })
  t.equal((await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: lines(5) }, headers: { 'idempotency-key': 'k-1' } })).status, 201)
  const overHttp = await call(baseUrl, 'POST', '/v2/entries', { key, body: invalid, headers: { 'idempotency-key': 'k-1' } })
  t.equal(overHttp.body.error.code, 'idempotency_conflict', 'over HTTP')
})

t.test('a retried close replays in-process too (PATCH honours the key)', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-lifecycle-'))
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))
  const ledger = await Ledger.open({ dataDir })
  t.teardown(() => ledger.close())
  await ledger.createAccount({ name: 'assets:bank' })
  const window = await ledger.openWindow({ label: 'empty', accounts: ['assets:bank'], window: { from: '2025-01-01', to: '2025-01-31' }, claimed_movement: 0 })
  const closed = await ledger.closeWindow(window.id, { reason: 'nothing happened' }, { idempotencyKey: 'close-1' })
  t.equal(closed.state, 'closed')
  t.same(await ledger.closeWindow(window.id, { reason: 'nothing happened' }, { idempotencyKey: 'close-1' }), closed, 'the first answer again')
  t.equal(await codeOf(ledger.closeWindow(window.id, { reason: 'nothing happened' })), 'recon_state_invalid', 'without the key: refused')
})

t.test('docs/ARCHITECTURE.md documents every stage, in the order they run', async (t) => {
  const text = fs.readFileSync(new URL('../../docs/ARCHITECTURE.md', import.meta.url), 'utf8')
  const section = text.slice(text.indexOf('## The request lifecycle'))
  const documented = [...section.matchAll(/^\| \d+ \| `([a-z]+)` \|/gm)].map((match) => match[1])
  t.same(documented, stageNames)
})
