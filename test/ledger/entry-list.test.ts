/** The entry list (src/ledger/entry-list.ts): a filter that keeps few entries ends a page early instead of walking the whole ledger. */
import t from 'tap'
import type { WorkspaceCommand } from '../../src/ledger/commands.js'
import { listEntries, type EntryListQuery } from '../../src/ledger/entry-list.js'
import type { Outcome } from '../../src/ledger/outcome.js'
import { pageItemsScannedMax } from '../../src/ledger/pages.js'
import { createWorkspaceState } from '../../src/ledger/state.js'
import { executeWorkspace } from '../../src/ledger/workspace.js'

const state = createWorkspaceState('ws', 'abcdef')
const startMs = Date.parse('2026-01-01T00:00:00.000Z')
function run(command: Record<string, unknown>): Record<string, any> {
  const outcome: Outcome = executeWorkspace(state, { at_ms: startMs + 10 ** 9, key_id: 'key_test', visibility: null, ...command } as WorkspaceCommand)
  if (!outcome.ok) throw new Error(`${outcome.code}: ${outcome.message}`)
  return outcome.body as Record<string, any>
}
for (const name of ['assets:bank', 'income:sales', 'expenses:hidden']) run({ type: 'account.create', name, tags: [] })
const post = (account: string, atMs: number) => run({ type: 'entry.post', lines: [{ account, amount: 1 }, { account: 'income:sales', amount: -1 }], effective_at_ms: atMs, description: null, metadata: null }).id as string

// Entries a key restricted to assets:* and income:* cannot see come first, more than one page may examine.
const hiddenCount = pageItemsScannedMax + 500
for (let i = 0; i < hiddenCount; i++) post('expenses:hidden', startMs + i)
const visible = [post('assets:bank', startMs + hiddenCount), post('assets:bank', startMs + hiddenCount + 1)]
const query: EntryListQuery = { account: null, reconciliation: null, fromMs: null, toMs: null, limit: 100, cursor: null }
const restricted = ['assets:*', 'income:*']

t.test('a restricted key: the first page stops after the scan budget, the cursor leads on to the visible entries', async (t) => {
  const first = listEntries(state, query, restricted)
  if (!first.ok) throw new Error(first.message)
  const page = first.body as { data: { id: string }[]; next_cursor: string | null }
  t.same(page.data, [], 'nothing visible among the entries examined')
  t.type(page.next_cursor, 'string', 'but a cursor: the list goes on')
  const second = listEntries(state, { ...query, cursor: page.next_cursor }, restricted)
  if (!second.ok) throw new Error(second.message)
  const rest = second.body as { data: { id: string }[]; next_cursor: string | null }
  t.same(rest.data.map((entry) => entry.id), visible)
  t.equal(rest.next_cursor, null)
})

t.test('an unrestricted key pages as before', async (t) => {
  const first = listEntries(state, { ...query, limit: 3 }, null)
  if (!first.ok) throw new Error(first.message)
  t.equal((first.body as { data: unknown[] }).data.length, 3)
})
