/**
 * The versioned acceptance rules of entry.post (src/ledger/commands.ts entryRulesVersion): a command built
 * under version 2 may not keep all its lines on one account; a record logged before (no version) is
 * replayed as it was accepted then, so replay stays deterministic over old logs.
 */
import t from 'tap'
import { entryRulesVersion, type EntryPost, type WorkspaceCommand } from '../../src/ledger/commands.js'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.js'
import { executeWorkspace } from '../../src/ledger/workspace.js'

const atMs = Date.parse('2026-11-22T12:00:00.000Z')

function workspace(): WorkspaceState {
  const state = createWorkspaceState('ws', 'abcdef')
  for (const name of ['assets:bank', 'income:sales']) executeWorkspace(state, { type: 'account.create', name, tags: [], at_ms: atMs, key_id: 'key_test', visibility: null })
  return state
}

function sameAccount(rules?: number): EntryPost {
  const command: EntryPost = { type: 'entry.post', lines: [{ account: 'assets:bank', amount: 5 }, { account: 'assets:bank', amount: -5 }], effective_at_ms: null, description: null, metadata: null, at_ms: atMs, key_id: 'key_test', visibility: null }
  return rules === undefined ? command : { ...command, rules }
}

t.test('version 2: all lines on one account is request_invalid and changes nothing', async (t) => {
  t.equal(entryRulesVersion, 2)
  const state = workspace()
  const outcome = executeWorkspace(state, sameAccount(entryRulesVersion))
  t.equal(outcome.ok ? 'ok' : outcome.code, 'request_invalid')
  t.match(outcome.ok ? '' : outcome.message, /moves money between accounts/)
  t.equal(state.entries.length, 0)
})

t.test('a record logged before version 2 replays as accepted then, the same on every replay', async (t) => {
  const replays = [workspace(), workspace()].map((state) => {
    const outcome = executeWorkspace(state, sameAccount() as WorkspaceCommand)
    t.equal(outcome.ok && outcome.status, 201, 'accepted, as it was when logged')
    return JSON.stringify(outcome.ok ? outcome.body : null)
  })
  t.equal(replays[0], replays[1], 'deterministic')
})
