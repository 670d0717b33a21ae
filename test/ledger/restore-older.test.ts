/**
 * Snapshots written before currencies and statement files (src/ledger/restore.ts): accounts without currency
 * or external_id, windows without a statement fingerprint, lines without value_date, counterparty or
 * outside_period still restore, to the state the same commands give when replayed from the log.
 */
import t from 'tap'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import { makeId } from '../../src/ledger/ids.ts'
import { factsOf, restoreWorkspace, type WorkspaceFacts } from '../../src/ledger/restore.ts'
import { createWorkspaceState } from '../../src/ledger/state.ts'
import { copiedFacts } from '../support/facts-copy.ts'
import { getWindow, listLines } from '../../src/ledger/windows.ts'
import { listAccounts } from '../../src/ledger/accounts.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'

const envelope = { at_ms: Date.UTC(2026, 1, 1), key_id: 'key_t', visibility: null }

/** Commands as the code before currencies logged them: no currency, no external_id, lines without the new fields. */
const older: WorkspaceCommand[] = [
  { ...envelope, type: 'account.create', name: 'assets:bank', tags: [] },
  { ...envelope, type: 'account.create', name: 'income:sales', tags: [] },
  { ...envelope, type: 'entry.post', lines: [{ account: 'assets:bank', amount: 5 }, { account: 'income:sales', amount: -5 }], effective_at_ms: Date.UTC(2026, 0, 10), description: null, metadata: null },
  { ...envelope, type: 'window.open', label: 'Jan', accounts: ['assets:bank'], from: '2026-01-01', to: '2026-01-31', claimed_movement: 5, statement_ref: null, tolerance: 0, time_zone: 'UTC' },
  { ...envelope, type: 'window.lines.add', window: makeId('rec_', 'tg', 1), lines: [{ amount: 5, date: '2026-01-10', reference: 'R', description: null }] },
]

t.test('older facts restore with the defaults the log replay gives', async (t) => {
  const replayed = createWorkspaceState('w', 'tg')
  for (const command of older) t.ok(executeWorkspace(replayed, command).ok, command.type)
  const facts = factsOf(replayed)
  // What an older snapshot held: the fields added since are absent.
  const stripped: WorkspaceFacts = {
    ...facts,
    accounts: facts.accounts.map(({ currency: _currency, externalId: _externalId, ...rest }) => rest),
    windows: facts.windows.map(({ statementFingerprint: _fingerprint, ...window }) => ({
      ...window, lines: window.lines.map(({ valueDate: _v, counterparty: _c, outsidePeriod: _o, ...line }) => line),
    })),
  }
  t.notOk('currency' in stripped.accounts[0], 'the stripped facts lack the currency')
  const restored = restoreWorkspace(copiedFacts(stripped))
  const windowId = replayed.windows.windows[0].id
  t.same(listAccounts(restored, { limit: 10, cursor: null }, null), listAccounts(replayed, { limit: 10, cursor: null }, null), 'accounts in USD, no external_id')
  t.match(listAccounts(restored, { limit: 10, cursor: null }, null), { body: { data: [{ currency: 'USD', external_id: null }, { currency: 'USD', external_id: null }] } })
  t.same(getWindow(restored, windowId, null), getWindow(replayed, windowId, null), 'the window, in USD')
  t.same(listLines(restored, windowId, { status: null, limit: 10, cursor: null }, null), listLines(replayed, windowId, { status: null, limit: 10, cursor: null }, null), 'lines with null value_date and counterparty, not outside the period')
  t.equal(restored.windows.windows[0].statementFingerprint, null)
})
