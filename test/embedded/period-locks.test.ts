/** Period locks through the embedded Ledger (src/embedded/ledger.ts): the same core refuses a posting (or a reversal) into a locked period, by a close's lock_period or the workspace setting. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { Ledger, TrueupError } from '../../src/index.ts'

const lines = (amount: number) => [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }]

async function refusal(promise: Promise<unknown>): Promise<TrueupError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof TrueupError) return error
    throw error
  }
  throw new Error('expected a TrueupError, the call succeeded')
}

t.test('a locked period refuses the embedded posting with period_locked', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-locks-'))
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))
  const ledger = await Ledger.open({ dataDir })
  t.teardown(() => ledger.close())
  await ledger.createAccount({ name: 'assets:bank' })
  await ledger.createAccount({ name: 'income:sales' })
  const sale = await ledger.postEntry({ lines: lines(500), effective_at: '2025-10-03T10:00:00Z' })
  const october = await ledger.openWindow({ label: 'October', accounts: ['assets:bank'], window: { from: '2025-10-01', to: '2025-10-31' }, claimed_movement: 500 })
  await ledger.closeWindow(october.id, { reason: 'agrees', lock_period: true })
  const refused = await refusal(ledger.postEntry({ lines: lines(5), effective_at: '2025-10-20T10:00:00Z' }))
  t.match(refused, { code: 'period_locked', status: 409 })
  t.match(JSON.stringify(refused.details), october.id, 'the details name the window')
  t.match(await refusal(ledger.reverseEntry(sale.id, { effective_at: '2025-10-04T10:00:00Z' })), { code: 'period_locked' }, 'a reversal into the locked period')
  t.match(await ledger.reverseEntry(sale.id), { reverses: sale.id, description: `Reversal of ${sale.id}` }, 'a reversal dated now')
  t.equal((await ledger.getEntry(sale.id)).reversed_by !== undefined, true, 'the original shows reversed_by')
  const november = await ledger.openWindow({ label: 'November', accounts: ['assets:bank'], window: { from: '2025-11-01', to: '2025-11-30' }, claimed_movement: 0 })
  await ledger.closeWindow(november.id, { reason: 'nothing moved' })
  t.equal((await ledger.postEntry({ lines: lines(5), effective_at: '2025-11-20T10:00:00Z' })).lines[0].amount, 5, 'unlocked: accepted')
  const workspace = await ledger.updateWorkspace('default', { settings: { lock_closed_periods: true } })
  t.match(workspace.settings, { lock_closed_periods: true })
  t.match(await refusal(ledger.postEntry({ lines: lines(5), effective_at: '2025-11-21T10:00:00Z' })), { code: 'period_locked' }, 'the setting locks it')
})
