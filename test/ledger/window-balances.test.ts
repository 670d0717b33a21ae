/**
 * A window's balances (docs/API.md, Reconciliation windows, "Balances"): the statement's opening and
 * closing balance beside its movement, the books' balances at the period's edges, and their differences.
 * The statement figures of each format are read by hand from the fixture files, not from the readers.
 */
import t from 'tap'
import { statementInputsOf } from '../../src/api/statement-file.ts'
import { answerText } from '../../src/ledger/outcome.ts'
import { factsOf, restoreWorkspace } from '../../src/ledger/restore.ts'
import { getWindow } from '../../src/ledger/windows.ts'
import { readStatements } from '../../src/statements/read.ts'
import { fixture } from '../statements/fixtures.ts'
import { copiedFacts } from '../support/facts-copy.ts'
import { machine, ok, posting, refused, run, type Machine } from '../support/workspace-machine.ts'

const nowMs = Date.parse('2026-11-26T12:00:00.000Z')

/** A workspace with the bank account the statement names (external_id, currency) and a counter account. */
function bankMachine(externalId: string, currency: string): Machine {
  const ctx = machine([], nowMs)
  ok(run(ctx, { type: 'account.create', name: 'assets:bank', tags: [], currency, external_id: externalId }))
  ok(run(ctx, { type: 'account.create', name: 'income:other', tags: [], currency }))
  return ctx
}

/** Imports the file's statements (as the statements route builds the command) and answers the windows. */
function importFile(ctx: Machine, bytes: Buffer): any[] {
  const read = readStatements(bytes)
  if (!read.ok) throw new Error(`${read.code}: ${read.message}`)
  return ok(run(ctx, { type: 'statements.import', statements: statementInputsOf(read.statements, null), time_zone: 'UTC' })).data
}

t.test('camt.053: OPBD and CLBD become the window\'s opening and closing balance', async (t) => {
  // v02-eur-console-october.xml: OPBD 10000.00 CRDT on 2026-09-30, CLBD 11610.10 CRDT on 2026-10-31 (EUR, 2 decimals).
  const ctx = bankMachine('DE89370400440532013000', 'EUR')
  ok(run(ctx, posting([['assets:bank', 999_000], ['income:other', -999_000]], '2026-09-15T09:00:00Z')))
  ok(run(ctx, posting([['assets:bank', 125_000], ['income:other', -125_000]], '2026-10-02T09:00:00Z')))
  const [window] = importFile(ctx, fixture('camt053', 'v02-eur-console-october.xml'))
  t.match(window, {
    opening_balance: 1_000_000, closing_balance: 1_161_010, claimed_movement: 161_010,
    book_opening_balance: 999_000, book_closing_balance: 1_124_000, opening_difference: 1_000, closing_difference: 37_010,
  })
})

t.test('MT940: :60F: and :62F: with their D/C marks (a debit opening is negative)', async (t) => {
  // bhd-three-statements.sta, second message: :60F:D261001BHD10,000 and :62F:C261002BHD0,001 (BHD, 3 decimals).
  const ctx = bankMachine('BH29BMAG00001299654321', 'BHD')
  ok(run(ctx, { type: 'account.create', name: 'assets:other', tags: [], currency: 'BHD', external_id: 'BH67BMAG00001299123456' }))
  ok(run(ctx, posting([['assets:bank', -10_000], ['income:other', 10_000]], '2026-09-30T23:59:59.999Z')))
  const [window] = importFile(ctx, fixture('mt940', 'bhd-three-statements.sta')).filter((each: any) => each.accounts[0] === 'assets:bank')
  t.match(window, {
    window: { from: '2026-10-02', to: '2026-10-02' }, opening_balance: -10_000, closing_balance: 1, claimed_movement: 10_001,
    book_opening_balance: -10_000, book_closing_balance: -10_000, opening_difference: 0, closing_difference: 10_001,
  })
})

t.test('BAI2: the 03 record\'s 010 (opening ledger) and 015 (closing ledger)', async (t) => {
  // jpy-crlf.bai: 03,1234567,JPY,010,1000000,,,015,838000 (JPY, no decimals).
  const ctx = bankMachine('1234567', 'JPY')
  const [window] = importFile(ctx, fixture('bai2', 'jpy-crlf.bai'))
  t.match(window, {
    opening_balance: 1_000_000, closing_balance: 838_000, claimed_movement: -162_000,
    book_opening_balance: 0, book_closing_balance: 0, opening_difference: 1_000_000, closing_difference: 838_000,
  })
})

const openCommand = (extra: Record<string, unknown>) => ({
  type: 'window.open' as const, label: 'November', accounts: ['assets:bank'], from: '2026-11-01', to: '2026-11-20', claimed_movement: 300,
  statement_ref: null, tolerance: 0, time_zone: 'Europe/London', ...extra,
})

t.test('window.open: both balances must agree with the claimed movement, else request_invalid naming them', async (t) => {
  const ctx = bankMachine('GB1', 'GBP')
  const rejection = refused(t, ctx, openCommand({ opening_balance: 1_000, closing_balance: 1_200 }), 'request_invalid', 'closing − opening is 200, claimed 300')
  t.same(rejection.details?.map((detail) => detail.path), ['/claimed_movement', '/opening_balance', '/closing_balance'])
  t.match(rejection.message, /claimed_movement 300 .*closing_balance − opening_balance = 200/)
  const window = ok(run(ctx, openCommand({ opening_balance: 1_000, closing_balance: 1_300 })))
  t.match(window, { opening_balance: 1_000, closing_balance: 1_300, book_opening_balance: 0, book_closing_balance: 0, opening_difference: 1_000, closing_difference: 1_300 })
})

t.test('window.open: one balance alone is kept; without them (an old record) the statement figures are null', async (t) => {
  const ctx = bankMachine('GB1', 'GBP')
  const alone = ok(run(ctx, openCommand({ opening_balance: 50 })))
  t.match(alone, { opening_balance: 50, closing_balance: null, opening_difference: 50, closing_difference: null })
  const other = machine(['assets:bank', 'income:other'], nowMs)
  const old = ok(run(other, openCommand({})))
  t.match(old, { opening_balance: null, closing_balance: null, book_opening_balance: 0, book_closing_balance: 0, opening_difference: null, closing_difference: null })
})

t.test('book balances at the period\'s local edges, live while open, frozen at close', async (t) => {
  const ctx = bankMachine('GB1', 'GBP')
  const post = (at: string, amount: number) => ok(run(ctx, posting([['assets:bank', amount], ['income:other', -amount]], at)))
  // 2026-11-01 00:00 in London is 00:00Z (GMT); 2026-11-21 00:00 likewise.
  post('2026-10-31T23:59:59.999Z', 7)
  post('2026-11-01T00:00:00.000Z', 100)
  const window = ok(run(ctx, openCommand({ opening_balance: 7, closing_balance: 307 })))
  post('2026-11-20T23:59:59.999Z', 200)
  post('2026-11-21T00:00:00.000Z', 5_000)
  const live = getWindow(ctx.state, window.id, null)
  t.match(live.ok && live.body, { book_opening_balance: 7, book_closing_balance: 307, derived_movement: 300, opening_difference: 0, closing_difference: 0 })
  t.equal(live.ok && answerText(live), JSON.stringify(live.ok && live.body), 'written out as JSON.stringify would')
  post('2026-10-01T12:00:00.000Z', 11)
  const moved = getWindow(ctx.state, window.id, null)
  t.match(moved.ok && moved.body, { book_opening_balance: 18, book_closing_balance: 318, opening_difference: -11, closing_difference: -11 }, 'a back-dated posting moves both')
  ok(run(ctx, { type: 'window.transition', window: window.id, state: 'abandoned', reason: 'test' }))
  post('2026-10-01T12:00:00.000Z', 13)
  const frozen = getWindow(ctx.state, window.id, null)
  t.match(frozen.ok && frozen.body, { book_opening_balance: 18, book_closing_balance: 318 }, 'frozen at abandon like the residual')
})

t.test('a statement imported again answers the first import\'s balances byte for byte', async (t) => {
  const ctx = bankMachine('1234567', 'JPY')
  const command = () => {
    const read = readStatements(fixture('bai2', 'jpy-crlf.bai'))
    if (!read.ok) throw new Error(read.code)
    return { type: 'statements.import' as const, statements: statementInputsOf(read.statements, null), time_zone: 'UTC' }
  }
  const first = run(ctx, command())
  ok(run(ctx, posting([['assets:bank', 3], ['income:other', -3]], '2026-01-01T00:00:00Z')))
  const again = run(ctx, command())
  t.equal(again.ok && answerText(again), first.ok && answerText(first))
})

t.test('restored from its facts (a snapshot), a window answers the same; from an older snapshot, without statement balances and with live book balances (frozen: 40)', async (t) => {
  const ctx = bankMachine('GB1', 'GBP')
  ok(run(ctx, posting([['assets:bank', 40], ['income:other', -40]], '2026-10-15T12:00:00Z')))
  const october = ok(run(ctx, { ...openCommand({ opening_balance: 0, closing_balance: 50 }), from: '2026-10-01', to: '2026-10-31', claimed_movement: 50, tolerance: 10 }))
  ok(run(ctx, { type: 'window.transition', window: october.id, state: 'closed', reason: 'fee' }))
  const november = ok(run(ctx, openCommand({ opening_balance: 50, closing_balance: 350 })))
  ok(run(ctx, posting([['assets:bank', 7], ['income:other', -7]], '2026-10-20T12:00:00Z')))
  const restored = restoreWorkspace(copiedFacts(factsOf(ctx.state)))
  for (const id of [october.id, november.id]) {
    const [live, again] = [getWindow(ctx.state, id, null), getWindow(restored, id, null)]
    t.equal(again.ok && answerText(again), live.ok && answerText(live), `${id}: the same answer`)
  }
  t.match(ok(getWindow(restored, october.id, null)), { book_opening_balance: 0, book_closing_balance: 40, closing_difference: 10 }, 'frozen at the close, before the later posting of 7')
  t.match(ok(getWindow(restored, november.id, null)), { previous: october.id, gap_days: 0, opening_matches_previous: true, book_opening_balance: 47 })
  const older = copiedFacts(factsOf(ctx.state))
  for (const window of older.windows) for (const field of ['openingBalance', 'closingBalance', 'frozenBook', 'bookOpeningAtOpen', 'previousSeqAtOpen']) delete (window as Record<string, unknown>)[field]
  t.match(ok(getWindow(restoreWorkspace(older), october.id, null)), { opening_balance: null, closing_balance: null, book_opening_balance: 0, book_closing_balance: 47, opening_difference: null })
})
