/** A bank statement file as a request body (src/api/statement-file.ts): its query, media types, reading and the command's inputs. */
import t from 'tap'
import {
  declaredFormatOf, labelQuery, namesStatementFile, readStatementFile, StatementFile, statementAccountsOf, statementFileMediaTypes,
  statementFileOf, statementInputsLater, statementInputsOf, statementMediaTypes, StatementsRead, formatQuery,
} from '../../src/api/statement-file.ts'
import type { Statement, StatementEntry } from '../../src/statements/types.ts'
import { writeMt940 } from '../support/statement-writers.ts'

function entry(amount: number, date: string, reference: string | null = null): StatementEntry {
  return { amount, mark: amount < 0 ? 'debit' : 'credit', reversal: false, date, value_date: null, reference, description: null, counterparty: null }
}

function statement(ref: string, account: string, opening: number, entries: readonly StatementEntry[]): Statement {
  const closing = opening + entries.reduce((sum, line) => sum + line.amount, 0)
  return {
    format: 'mt940', statement_ref: ref, account, currency: 'EUR', opening: { amount: opening, date: '2026-10-31' }, closing: { amount: closing, date: '2026-11-30' },
    period: { from: '2026-11-01', to: '2026-11-30' }, entries,
  }
}

t.test('label: free text up to 200 characters, no control character; absent is null', async (t) => {
  t.same(labelQuery.parse(new URLSearchParams()), { ok: true, value: null })
  t.same(labelQuery.parse(new URLSearchParams({ label: 'Nov\tbank' })), { ok: true, value: 'Nov\tbank' }, 'a tab is text')
  t.same(labelQuery.parse(new URLSearchParams({ label: 'l'.repeat(200) })), { ok: true, value: 'l'.repeat(200) })
  t.equal(labelQuery.parse(new URLSearchParams({ label: 'l'.repeat(201) })).ok, false)
  const control = labelQuery.parse(new URLSearchParams({ label: 'a\u001bb' }))
  t.match(control, { ok: false, code: 'request_invalid', details: [{ path: '/label' }] })
  t.equal(labelQuery.parse(new URLSearchParams({ label: 'a\u0085b' })).ok, false, 'a C1 control character too')
})

t.test('format: one of the known names; declaredFormatOf reads only a known one', async (t) => {
  t.same(formatQuery.parse(new URLSearchParams({ format: 'mt940' })), { ok: true, value: 'mt940' })
  t.equal(formatQuery.parse(new URLSearchParams({ format: 'csv' })).ok, false)
  t.equal(declaredFormatOf({ format: 'bai2' }), 'bai2')
  t.equal(declaredFormatOf({ format: 'csv' }), null)
  t.equal(declaredFormatOf({ format: null }), null)
  t.equal(declaredFormatOf({}), null)
})

t.test('media types: every format\'s own, then the generic two for POST /v2/statements', async (t) => {
  const own = statementMediaTypes.map((type) => type.mediaType)
  t.same(own.sort(), ['application/x-bai2', 'application/x-mt940', 'application/xml', 'text/xml'])
  const all = statementFileMediaTypes.map((type) => type.mediaType)
  t.same(all.slice(-2), ['text/plain', 'application/octet-stream'])
  t.equal(new Set(all).size, all.length, 'each once')
})

t.test('namesStatementFile: ?format= or a statement Content-Type (parameters and case aside)', async (t) => {
  t.ok(namesStatementFile('application/json', new URLSearchParams({ format: 'x' })), 'the query names it, even a bad format (refused later)')
  t.ok(namesStatementFile('Application/X-MT940; charset=latin1', new URLSearchParams()))
  t.ok(namesStatementFile('text/xml', new URLSearchParams()))
  t.notOk(namesStatementFile('application/json', new URLSearchParams()))
  t.notOk(namesStatementFile('text/plain', new URLSearchParams()), 'a generic type names no format')
  t.notOk(namesStatementFile('', new URLSearchParams({ label: 'x' })))
})

t.test('statementFileOf: the bytes unread, with their type', async (t) => {
  const bytes = Buffer.from('anything')
  const parsed = statementFileOf(bytes, 'text/plain')
  t.ok(parsed.value instanceof StatementFile)
  t.equal(parsed.value.bytes, bytes)
  t.equal(parsed.value.contentType, 'text/plain')
})

t.test('readStatementFile: a balanced file read into its statements; bad and unbalanced files refused', async (t) => {
  const good = [statement('S/1', 'DE89370400440532013000', 1000, [entry(250, '2026-11-03', 'R1'), entry(-100, '2026-11-04')])]
  const read = await readStatementFile(new StatementFile(Buffer.from(writeMt940(good)), 'application/x-mt940'), null)
  if (!read.ok) throw new Error(JSON.stringify(read))
  t.ok(read.value instanceof StatementsRead)
  t.equal(read.value.statements.length, 1)
  t.match(read.value.statements[0], { statement_ref: 'S/1', account: 'DE89370400440532013000', opening: { amount: 1000 }, closing: { amount: 1150 } })
  t.same(read.value.statements[0].entries.map((line) => line.amount), [250, -100])
  const viaQuery = await readStatementFile(new StatementFile(Buffer.from(writeMt940(good)), 'application/octet-stream'), 'mt940')
  t.equal(viaQuery.ok, true, '?format= reads a file of a generic type')
  const garbage = await readStatementFile(new StatementFile(Buffer.from('not a statement'), 'text/plain'), null)
  t.match(garbage, { ok: false, code: 'statement_invalid' })
  const unbalanced = writeMt940([{ ...good[0], closing: { amount: 9999, date: '2026-11-30' } }])
  t.match(await readStatementFile(new StatementFile(Buffer.from(unbalanced), 'application/x-mt940'), null), { ok: false, code: 'statement_unbalanced' })
})

t.test('statementInputsOf: movement from the balances, the label given or derived, a content fingerprint', async (t) => {
  const first = statement('S1', 'ACC1', -500, [entry(200, '2026-11-02', 'R1'), entry(-50, '2026-11-03')])
  const [input] = statementInputsOf([first], null)
  t.equal(input.label, 'S1 ACC1')
  t.equal(input.claimed_movement, 150)
  t.equal(input.opening_balance, -500)
  t.equal(input.closing_balance, -350)
  t.equal(input.from, '2026-11-01')
  t.equal(input.to, '2026-11-30')
  t.same(input.lines[0], { amount: 200, date: '2026-11-02', value_date: null, reference: 'R1', description: null, counterparty: null }, 'mark and reversal are not the command\'s')
  t.equal(statementInputsOf([first], 'Given')[0].label, 'Given')
  t.equal(statementInputsOf([first], 'Given')[0].fingerprint, input.fingerprint, 'the label is not content')
  t.equal(statementInputsOf([first], null)[0].fingerprint, input.fingerprint, 'the same content, the same fingerprint')
  const changed = statement('S1', 'ACC1', -500, [entry(200, '2026-11-02', 'R2'), entry(-50, '2026-11-03')])
  t.not(statementInputsOf([changed], null)[0].fingerprint, input.fingerprint, 'one reference changed, another fingerprint')
  t.same(statementInputsOf([statement('S0', 'A', 0, [])], null)[0].lines, [], 'a statement without lines')
  t.equal(statementInputsOf([statement('S0', 'A', 0, [])], null)[0].claimed_movement, 0)
  t.same(statementInputsOf([], null), [])
})

t.test('the derived label: cut at 200 characters, never inside a surrogate pair', async (t) => {
  const long = statementInputsOf([statement('r'.repeat(150), 'a'.repeat(100), 0, [])], null)[0].label
  t.equal(long.length, 200)
  const emoji = '\u{1F600}'
  const pair = statementInputsOf([statement('r'.repeat(199) + emoji, 'A', 0, [])], null)[0].label
  t.equal(pair, 'r'.repeat(199), 'the high half alone is dropped')
  const whole = statementInputsOf([statement('r'.repeat(198) + emoji, 'A', 0, [])], null)[0].label
  t.equal(whole, 'r'.repeat(198) + emoji, 'a pair that fits is kept')
})

t.test('statementInputsLater: the same inputs, in order, over more than one turn', async (t) => {
  const many = Array.from({ length: 300 }, (_, index) => statement(`S${index}`, `A${index}`, index, [entry(1, '2026-11-05')]))
  t.same(await statementInputsLater(many, 'L'), statementInputsOf(many, 'L'))
  t.same(await statementInputsLater([], null), [])
  t.same(statementAccountsOf(many.slice(0, 2)), [{ account: 'A0', currency: 'EUR' }, { account: 'A1', currency: 'EUR' }])
})
