/**
 * src/ledger/system-pages.ts on its own, over a system made by the real commands: workspaces and keys listed in
 * creation order and paged by cursor to the end (no item twice, none left out); keys of one workspace only, revoked
 * ones included, never a secret or its hash; a cursor of another list, or garbage, refused; unknown workspaces
 * not_found; the system queries answered as the functions answer.
 */
import t from 'tap'
import { createSystemState, executeSystem, limitsDefault, type SystemCommand, type SystemState } from '../../src/ledger/system.ts'
import { executeSystemQuery, getWorkspace, listKeys, listWorkspaces } from '../../src/ledger/system-pages.ts'

const atMs = Date.UTC(2026, 5, 1, 12)

function system(): SystemState {
  const state = createSystemState()
  const commands: SystemCommand[] = []
  for (const id of ['ws_a', 'ws_b', 'ws_c', 'ws_d', 'ws_e']) commands.push({ type: 'workspace.create', at_ms: atMs, id, time_zone: 'UTC', limits: limitsDefault, tag: id.slice(3).padEnd(4, 'x') })
  ;['ws_a', 'ws_b', 'ws_a', 'ws_c', 'ws_a'].forEach((workspace, index) => {
    commands.push({ type: 'key.create', at_ms: atMs + index, id: `key_${index + 1}`, workspace, scopes: ['entries:read'], accounts: null, name: null, secret_hash: `hash${index}`.padEnd(64, '0') })
  })
  commands.push({ type: 'key.revoke', at_ms: atMs + 9, id: 'key_3' })
  for (const command of commands) {
    const outcome = executeSystem(state, command)
    if (!outcome.ok) throw new Error(`${command.type}: ${outcome.code}`)
  }
  return state
}

/** Every page of a list, following next_cursor (bounded). */
function pages(list: (cursor: string | null) => any): any[][] {
  const all: any[][] = []
  let cursor: string | null = null
  for (let page = 0; page < 20; page++) {
    const outcome = list(cursor)
    if (!outcome.ok) throw new Error(outcome.code)
    all.push(outcome.body.data)
    cursor = outcome.body.next_cursor
    if (cursor === null) break
  }
  return all
}

t.test('workspaces in creation order, two a page, to the end', async (t) => {
  const state = system()
  const all = pages((cursor) => listWorkspaces(state, 2, cursor))
  t.same(all.map((page) => page.map((workspace: { id: string }) => workspace.id)), [['ws_a', 'ws_b'], ['ws_c', 'ws_d'], ['ws_e']])
  t.match(all[0][0], { id: 'ws_a', timezone: 'UTC', limits: limitsDefault, created_at: '2026-06-01T12:00:00.000Z' })
})

t.test('keys: all of them, or one workspace\'s, revoked ones included, never the hash', async (t) => {
  const state = system()
  const every = pages((cursor) => listKeys(state, null, 2, cursor)).flat()
  t.same(every.map((key) => key.id), ['key_1', 'key_2', 'key_3', 'key_4', 'key_5'])
  const ofA = pages((cursor) => listKeys(state, 'ws_a', 1, cursor))
  t.same(ofA.flat().map((key) => key.id), ['key_1', 'key_3', 'key_5'], 'only ws_a\'s, none twice, none left out')
  t.ok(ofA.every((page) => page.length <= 1))
  t.match(ofA.flat()[1], { id: 'key_3', revoked_at: '2026-06-01T12:00:00.009Z' })
  t.notMatch(JSON.stringify(every), /hash|secret/)
  t.same(pages((cursor) => listKeys(state, 'ws_e', 5, cursor)), [[]], 'a workspace without keys')
})

t.test('refused: unknown workspaces, garbage cursors, a cursor of another list', async (t) => {
  const state = system()
  t.match(listKeys(state, 'ws_zz', 5, null), { ok: false, code: 'not_found' })
  t.match(getWorkspace(state, 'ws_zz'), { ok: false, code: 'not_found', message: 'No workspace ws_zz.' })
  t.match(listWorkspaces(state, 2, 'garbage'), { ok: false })
  const workspacesCursor = (listWorkspaces(state, 2, null) as any).body.next_cursor
  const keysCursor = (listKeys(state, 'ws_a', 1, null) as any).body.next_cursor
  t.match(listKeys(state, 'ws_a', 1, workspacesCursor), { ok: false }, 'a workspaces cursor for keys')
  t.match(listKeys(state, 'ws_b', 1, keysCursor), { ok: false }, 'one workspace\'s keys cursor for another\'s')
  t.match(listWorkspaces(state, 2, keysCursor), { ok: false })
  t.match(listKeys(state, 'ws_a', 1, keysCursor), { ok: true }, 'its own list takes it')
})

t.test('the system queries answer as the functions do', async (t) => {
  const state = system()
  t.same(executeSystemQuery(state, { name: 'workspace.get', params: { workspace: 'ws_b' } }), getWorkspace(state, 'ws_b'))
  t.same(executeSystemQuery(state, { name: 'workspace.list', params: { limit: 3, cursor: null } }), listWorkspaces(state, 3, null))
  t.same(executeSystemQuery(state, { name: 'key.list', params: { workspace: 'ws_c', limit: 3, cursor: null } }), listKeys(state, 'ws_c', 3, null))
  t.match(getWorkspace(state, 'ws_b'), { ok: true, status: 200, body: { id: 'ws_b' } })
})
