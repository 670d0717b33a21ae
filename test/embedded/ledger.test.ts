/** The embedded Ledger (src/embedded/ledger.ts): the same commands, actor and log as the service, typed errors, durable answers, reopen. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { createServer, Ledger, TrueupError } from '../../src/index.ts'
import { call } from '../support/service.ts'

function tempDir(t: { teardown(fn: () => void): unknown }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-embedded-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** The rejection a call ends with, as a TrueupError (fails the test when it resolves). */
async function refusal(promise: Promise<unknown>): Promise<TrueupError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof TrueupError) return error
    throw error
  }
  throw new Error('expected a TrueupError, the call succeeded')
}

const lines = (amount: number) => [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }]

t.test('post, balance, window, match, write off, close; reopen and see everything', async (t) => {
  const dataDir = tempDir(t)
  const ledger = await Ledger.open({ dataDir })
  const bank = await ledger.createAccount({ name: 'assets:bank', tags: ['eur'] })
  t.match(bank, { id: /^acc_/, name: 'assets:bank', tags: ['eur'] })
  await ledger.createAccount({ name: 'income:sales' })
  const first = await ledger.postEntry({ lines: lines(5000), effective_at: '2025-10-03T10:00:00Z', description: 'Invoice 1001' })
  const second = await ledger.postEntry({ lines: lines(3500), effective_at: '2025-10-17T15:30:00+02:00' })
  t.match(first, { id: /^ent_/, effective_at: '2025-10-03T10:00:00.000Z', description: 'Invoice 1001', metadata: null })
  t.same(first.lines, [{ account: 'assets:bank', account_id: bank.id, currency: 'USD', amount: 5000 }, { account: 'income:sales', account_id: first.lines[1].account_id, currency: 'USD', amount: -5000 }])
  t.equal(second.effective_at, '2025-10-17T13:30:00.000Z', 'returned in UTC')
  t.same(await ledger.balance('assets:bank', { at: '2025-11-01T00:00:00+01:00' }), { account: bank.id, name: 'assets:bank', currency: 'USD', balance: 8500, at: '2025-10-31T23:00:00.000Z' })
  t.equal((await ledger.balance('assets:bank')).balance, 8500, 'balance now')
  t.equal((await ledger.balance(bank.id, { at: new Date('2025-10-10T00:00:00Z') })).balance, 5000, 'balance at a Date')
  t.equal((await ledger.listEntries({ account: 'assets:bank', limit: 1 })).data.length, 1)

  const window = await ledger.openWindow({ label: 'October', accounts: ['assets:bank'], window: { from: '2025-10-01', to: '2025-10-31' }, claimed_movement: 8495 })
  t.match(window, { id: /^rec_/, state: 'open', derived_movement: 8500, residual: -5, claimed_movement: 8495 })
  const added = await ledger.addStatementLines(window.id, 'date,amount,reference,description\n2025-10-03,5000,TRX-1,"Invoice 1001, ACME"\n2025-10-17,3500,TRX-2,\n')
  t.same(added.lines.map((line) => [line.id, line.amount, line.reference, line.description]), [['l1', 5000, 'TRX-1', 'Invoice 1001, ACME'], ['l2', 3500, 'TRX-2', null]], 'CSV lines')
  t.equal((await ledger.addStatementLines(window.id, [{ amount: -5, date: '2025-10-31', reference: 'FEE-10' }])).lines_count, 3, 'object lines')
  const matched = await ledger.match(window.id, { statement_lines: ['l1'], entries: [first.id], strategy: 'amount_and_date' })
  t.match(matched, { id: /^mat_/, matched_amount: 0, residual: -5, state: 'open' })
  const reversed = await ledger.unmatch(window.id, matched.id)
  t.ok(reversed.reversed_at, 'unmatch sets reversed_at')
  t.equal((await refusal(ledger.unmatch(window.id, matched.id))).code, 'match_already_reversed')
  await ledger.match(window.id, { statement_lines: ['l1'], entries: [first.id], strategy: 'amount_and_date' })
  await ledger.match(window.id, { statement_lines: ['l2'], entries: [second.id], strategy: 'amount_and_date' })
  const writeOff = await ledger.match(window.id, { statement_lines: ['l3'], strategy: 'write_off', reason: 'Bank fee' })
  t.match(writeOff, { matched_amount: -5, residual: 0, state: 'balanced' })
  t.equal((await ledger.listStatementLines(window.id, { status: 'unmatched' })).data.length, 0)
  t.equal((await ledger.listMatches(window.id)).data.length, 4, 'active and reversed')
  const closed = await ledger.closeWindow(window.id)
  t.match(closed, { state: 'closed', residual: 0, closed_by: 'embedded' })
  const history = (await ledger.windowHistory(window.id)).data
  t.same(history.map((event) => event.type), ['opened', 'lines_added', 'lines_added', 'matched', 'unmatched', 'matched', 'matched', 'matched', 'balanced', 'closed'])
  const before = { accounts: await ledger.listAccounts(), entries: await ledger.listEntries(), window: await ledger.getWindow(window.id), balance: (await ledger.balance('assets:bank', { at: '2026-01-01T00:00:00Z' })).balance }
  await ledger.close()

  const reopened = await Ledger.open({ dataDir })
  t.teardown(() => reopened.close())
  const after = { accounts: await reopened.listAccounts(), entries: await reopened.listEntries(), window: await reopened.getWindow(window.id), balance: (await reopened.balance('assets:bank', { at: '2026-01-01T00:00:00Z' })).balance }
  t.same(after, before, 'accounts, entries, the closed window and balances survive a reopen')
  t.equal((await refusal(reopened.addStatementLines(window.id, [{ amount: 1, date: '2025-10-02' }]))).code, 'recon_state_invalid', 'the window is still closed')
})

t.test('refusals are TrueupErrors with the HTTP code, status and details', async (t) => {
  const ledger = await Ledger.open({ dataDir: tempDir(t) })
  t.teardown(() => ledger.close())
  await ledger.createAccount({ name: 'assets:bank' })
  await ledger.createAccount({ name: 'income:sales' })
  const unbalanced = await refusal(ledger.postEntry({ lines: [{ account: 'assets:bank', amount: 2 }, { account: 'income:sales', amount: -1 }] }))
  t.match(unbalanced, { name: 'TrueupError', code: 'entry_unbalanced', status: 422 })
  t.ok(unbalanced instanceof Error, 'an Error')
  const invalid = await refusal(ledger.postEntry({ lines: [{ account: 'assets:bank', amount: 1.5 }, { account: 'income:sales', amount: -1.5 }] }))
  t.match(invalid, { code: 'request_invalid', status: 400 })
  t.same(invalid.details.map((detail) => detail.path), ['/lines/0/amount', '/lines/1/amount'], 'the validator\'s details')
  t.match(await refusal(ledger.postEntry({ lines: [{ account: 'assets:nope', amount: 1 }, { account: 'income:sales', amount: -1 }] })), { code: 'account_unknown', status: 404 })
  t.match(await refusal(ledger.getWindow('rec_nope')), { code: 'not_found', status: 404 })
  t.match(await refusal(ledger.createAccount({ name: 'assets:bank' })), { code: 'account_exists', status: 409 })
  t.match(await refusal(ledger.addStatementLines('rec_nope', 'date,amount\n2025-13-45,x\n')), { code: 'request_invalid' }, 'a bad CSV row')
  t.match(await refusal(ledger.createAccount({ name: 'assets:x' }, { workspace: 'nowhere' })), { code: 'not_found' }, 'an unknown workspace')
  t.match(await refusal(ledger.createWorkspace({ id: 'default', timezone: 'UTC' })), { code: 'workspace_exists', status: 409 })
  t.equal((await ledger.listEntries()).data.length, 0, 'nothing was stored by any refusal')
})

t.test('idempotency keys, workspaces, copies and concurrent calls', async (t) => {
  const ledger = await Ledger.open({ dataDir: tempDir(t), workspace: 'main' })
  t.teardown(() => ledger.close())
  const bank = await ledger.createAccount({ name: 'assets:bank', tags: ['a'] })
  await ledger.createAccount({ name: 'income:sales' })
  const once = await ledger.postEntry({ lines: lines(7) }, { idempotencyKey: 'inv-7' })
  const again = await ledger.postEntry({ lines: lines(7) }, { idempotencyKey: 'inv-7' })
  t.same(again, once, 'the same key and input: the first answer')
  t.equal((await refusal(ledger.postEntry({ lines: lines(8) }, { idempotencyKey: 'inv-7' }))).code, 'idempotency_conflict')
  t.equal((await ledger.balance('assets:bank')).balance, 7, 'one effect')

  bank.tags.push('mutated')
  t.same((await ledger.getAccount(bank.id)).tags, ['a'], 'answers are copies: changing one changes no state')

  await ledger.createWorkspace({ id: 'acme', timezone: 'Europe/Berlin' })
  await ledger.createAccount({ name: 'assets:bank' }, { workspace: 'acme' })
  t.equal((await ledger.listAccounts({}, { workspace: 'acme' })).data.length, 1, 'another workspace')
  t.equal((await ledger.listAccounts()).data.length, 2, 'the Ledger\'s own is untouched')

  const posted = await Promise.all(Array.from({ length: 200 }, (_, i) => ledger.postEntry({ lines: lines(i + 1) })))
  t.equal(new Set(posted.map((entry) => entry.id)).size, 200, '200 concurrent posts, 200 entries')
  t.equal((await ledger.balance('assets:bank')).balance, 7 + (200 * 201) / 2, 'and the balance adds up')
})

t.test('the Ledger answers as the HTTP API does, on the same data dir', async (t) => {
  const dataDir = tempDir(t)
  const ledger = await Ledger.open({ dataDir })
  await ledger.createAccount({ name: 'assets:bank' })
  await ledger.createAccount({ name: 'income:sales' })
  const entry = await ledger.postEntry({ lines: lines(42), effective_at: '2025-06-01T00:00:00Z', metadata: { ref: 'x' } })
  const window = await ledger.openWindow({ label: 'June', accounts: ['assets:bank'], window: { from: '2025-06-01', to: '2025-06-30' }, claimed_movement: 42 })
  const key = await ledger.createKey({ scopes: ['accounts:read', 'entries:read', 'recon:read'], name: 'reader' })
  t.match(key, { id: /^key_/, secret: /^tu_/, workspace: 'default', name: 'reader' })
  const balance = await ledger.balance('assets:bank', { at: '2025-12-31T00:00:00Z' })
  await ledger.close()

  const server = await createServer({ dataDir, port: 0, logLevel: 'silent' })
  t.teardown(() => server.stop())
  t.equal(server.apiKey, undefined, 'not a first start: no new key')
  t.same((await call(server.url, 'GET', `/v2/entries/${entry.id}`, { key: key.secret })).body, entry, 'the entry, byte for byte')
  t.same((await call(server.url, 'GET', `/v2/reconciliations/${window.id}`, { key: key.secret })).body, window, 'the window')
  t.same((await call(server.url, 'GET', '/v2/accounts/assets%3Abank/balance?at=2025-12-31T00:00:00Z', { key: key.secret })).body, balance, 'the balance')
})

t.test('a statement file imports in-process as over HTTP; a bad one is a TrueupError', async (t) => {
  const ledger = await Ledger.open({ dataDir: tempDir(t) })
  t.teardown(() => ledger.close())
  await ledger.createAccount({ name: 'assets:bank', external_id: 'US-EXAMPLE-0001' })
  const file = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/examples/november.camt053.xml'))
  const imported = await ledger.importStatements(file, { label: 'November, week 1' })
  t.match(imported, { statements: 1, data: [{ label: 'November, week 1', currency: 'USD', window: { from: '2026-11-01', to: '2026-11-07' }, claimed_movement: 1185, lines_count: 2 }] })
  t.same(await ledger.importStatements(file, { label: 'November, week 1' }), imported, 'the same statement again: its stored result')
  t.match(await refusal(ledger.importStatements('01,garbage', { format: 'bai2' })), { code: 'statement_invalid', status: 400 })
})
