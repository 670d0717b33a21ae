/**
 * The response schemas (src/api/schemas/responses.ts): page() is `{data, next_cursor}` of its item; the named schemas
 * have unique names and are distinct objects (the OpenAPI generator puts a $ref where it meets one of them); the
 * error envelope's codes are exactly the catalogue's; and the answers of an embedded ledger (the same handlers and
 * ledger as the service, no server) fit their schemas exactly: each field required is there, each field there is
 * declared (objects read as closed unless the schema leaves them open), formats and bounds hold.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { Type, type TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import * as responses from '../../../src/api/schemas/responses.ts'
import { errorBody, errorCatalogue, reject } from '../../../src/errors.ts'
import { Ledger } from '../../../src/index.ts'

/** The schema as plain JSON Schema, each object closed unless it says additionalProperties itself. */
function closed(schema: TSchema): TSchema {
  const close = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(close)
    if (node === null || typeof node !== 'object') return node
    const copy: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) copy[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([name, sub]) => [name, close(sub)])) : close(value)
    if (copy.type === 'object' && copy.properties !== undefined && copy.additionalProperties === undefined) copy.additionalProperties = false
    return copy
  }
  return close(JSON.parse(JSON.stringify(schema))) as TSchema
}

function fits(t: Test, schema: TSchema, value: unknown, what: string): void {
  const compiled = Compile(closed(schema))
  t.ok(compiled.Check(value), `${what}: ${JSON.stringify([...compiled.Errors(value)].slice(0, 3))}`)
}

t.test('page(): data, an array of the item, and next_cursor, a string or null; both required', async (t) => {
  const page = Compile(responses.page(Type.Object({ id: Type.String() }, { additionalProperties: false })))
  t.ok(page.Check({ data: [], next_cursor: null }))
  t.ok(page.Check({ data: [{ id: 'a' }], next_cursor: 'c1' }))
  for (const bad of [{ data: [] }, { next_cursor: null }, { data: [{ id: 1 }], next_cursor: null }, { data: [], next_cursor: 3 }, { data: {}, next_cursor: null }]) {
    t.notOk(page.Check(bad), JSON.stringify(bad))
  }
})

t.test('the named schemas: unique names, distinct objects; the error envelope\'s codes exactly the catalogue\'s', async (t) => {
  const names = responses.namedSchemas.map(([name]) => name)
  t.equal(new Set(names).size, names.length, 'no name twice')
  t.equal(new Set(responses.namedSchemas.map(([, schema]) => schema)).size, names.length, 'no schema under two names')
  for (const [name, schema] of [['Entry', responses.entry], ['Error', responses.errorEnvelope], ['AccountPage', responses.accountPage]] as const) {
    t.equal(responses.namedSchemas.find(([named]) => named === name)?.[1], schema, name)
  }
  const codes = (responses.errorEnvelope.properties.error.properties.code.anyOf as { const: string }[]).map((literal) => literal.const)
  t.same([...codes].sort(), Object.keys(errorCatalogue).sort())
  fits(t, responses.errorEnvelope, JSON.parse(errorBody(reject('request_invalid', 'Bad.', [{ path: '/lines', message: 'empty' }]))), 'an error with details')
  fits(t, responses.errorEnvelope, JSON.parse(errorBody(reject('not_found', 'No such entry.'))), 'an error without')
  t.notOk(Compile(responses.errorEnvelope).Check({ error: { code: 'no_such_code', message: 'x' } }), 'a code not in the catalogue')
})

t.test('the answers of an embedded ledger fit their schemas exactly', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-responses-'))
  const ledger = await Ledger.open({ dataDir })
  t.teardown(async () => {
    await ledger.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  const bank = await ledger.createAccount({ name: 'assets:bank', tags: ['eur'] })
  fits(t, responses.account, bank, 'account')
  await ledger.createAccount({ name: 'income:sales' })
  const posted = await ledger.postEntry({ lines: [{ account: 'assets:bank', amount: 5000 }, { account: 'income:sales', amount: -5000 }], effective_at: '2025-10-03T10:00:00Z', metadata: { order: '1' } })
  fits(t, responses.entry, posted, 'entry')
  fits(t, responses.entry, await ledger.reverseEntry(posted.id, { effective_at: '2025-10-04T00:00:00Z' }), 'a reversal (reverses)')
  fits(t, responses.entry, await ledger.getEntry(posted.id), 'a reversed entry (reversed_by)')
  fits(t, responses.entryPage, await ledger.listEntries({ limit: 1 }), 'a page of entries with a cursor')
  fits(t, responses.accountPage, await ledger.listAccounts(), 'accounts')
  fits(t, responses.balance, await ledger.balance('assets:bank'), 'balance')
  const second = await ledger.postEntry({ lines: [{ account: 'assets:bank', amount: 3500 }, { account: 'income:sales', amount: -3500 }], effective_at: '2025-10-17T15:30:00+02:00' })
  const window = await ledger.openWindow({ label: 'October', accounts: ['assets:bank'], window: { from: '2025-10-01', to: '2025-10-31' }, claimed_movement: 3500 })
  fits(t, responses.reconciliationWindow, window, 'window')
  const added = await ledger.addStatementLines(window.id, [{ amount: 3500, date: '2025-10-17', reference: 'TRX-2', counterparty: { name: 'ACME' } }])
  fits(t, responses.linesAdded, added, 'lines added')
  const matched = await ledger.match(window.id, { statement_lines: ['l1'], entries: [second.id], strategy: 'amount_and_date' })
  fits(t, responses.match, matched, 'match')
  fits(t, responses.linePage, await ledger.listStatementLines(window.id), 'lines')
  fits(t, responses.matchPage, await ledger.listMatches(window.id), 'matches')
  fits(t, responses.reconciliationWindow, await ledger.closeWindow(window.id), 'a closed window')
  fits(t, responses.history, await ledger.windowHistory(window.id), 'history')
  fits(t, responses.windowPage, await ledger.listWindows(), 'windows')
})

t.test('a control: the closed check does refuse a field the schema does not declare, and a missing one', async (t) => {
  const entry = { id: 'ent_1', lines: [], effective_at: '2026-01-01T00:00:00.000Z', posted_at: '2026-01-01T00:00:00.000Z', description: null, metadata: null }
  t.ok(Compile(closed(responses.entry)).Check(entry))
  t.notOk(Compile(closed(responses.entry)).Check({ ...entry, extra: 1 }), 'undeclared')
  t.notOk(Compile(closed(responses.entry)).Check({ ...entry, effective_at: '2026-01-01' }), 'not a date-time')
  const { posted_at: _, ...missing } = entry
  t.notOk(Compile(closed(responses.entry)).Check(missing), 'required')
  const event = { type: 'matched', at: '2026-01-01T00:00:00.000Z', key_id: 'key_1', state: 'open', residual: 0 }
  t.ok(Compile(closed(responses.historyEvent)).Check({ ...event, match: 'mat_1' }), 'a history event stays open: each type carries its own details')
  t.notOk(Compile(closed(responses.historyEvent)).Check({ ...event, state: 'pending' }), 'but its state is a window\'s')
})
