/**
 * The system state machine (src/ledger/system.ts): workspaces and API keys. Each command accepted with its
 * answer, and refused with each of its codes (request_invalid, workspace_exists, unavailable, not_found),
 * a refusal leaving the system state exactly as it was.
 */
import t, { type Test } from 'tap'
import { createSystemState, executeSystem, keyView, limitsDefault, settingsDefault, workspaceView, type SystemCommand, type SystemState, type WorkspaceRecord } from '../../src/ledger/system.ts'
import { restoreSystem } from '../../src/ledger/restore.ts'
import { stableSerialize } from '../support/state-fingerprint.ts'

const nowMs = Date.parse('2026-12-01T12:00:00.000Z')

function accepted(state: SystemState, command: SystemCommand): any {
  const outcome = executeSystem(state, command)
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.code}`)
  return outcome
}

function refused(t: Test, state: SystemState, command: SystemCommand, code: string, why: string): void {
  const before = stableSerialize(state)
  const outcome = executeSystem(state, command)
  t.equal(outcome.ok ? `accepted ${outcome.status}` : outcome.code, code, why)
  t.equal(stableSerialize(state), before, `${why}: the system state is unchanged`)
}

const createWorkspace = (id: string, tag: string, timeZone = 'Europe/Berlin'): SystemCommand => ({ type: 'workspace.create', at_ms: nowMs, id, time_zone: timeZone, limits: limitsDefault, tag })
const createKey = (id: string, workspace: string, hash = `hash-${id}`): SystemCommand => ({ type: 'key.create', at_ms: nowMs, id, workspace, scopes: ['accounts:read'], accounts: ['assets:*'], name: 'reader', secret_hash: hash })

t.test('workspace.create: 201 with the view; refused for a bad zone, an existing id, a tag collision', async (t) => {
  const state = createSystemState()
  const outcome = accepted(state, createWorkspace('acme', 'tag1'))
  t.equal(outcome.status, 201)
  t.same(outcome.body, { id: 'acme', timezone: 'Europe/Berlin', currency: 'USD', limits: limitsDefault, settings: settingsDefault, seal_public_key: null, created_at: '2026-12-01T12:00:00.000Z' })
  t.same(outcome.body, workspaceView(state.workspaces.get('acme')!))
  t.ok(state.tags.has('tag1'))
  refused(t, state, createWorkspace('other', 'tag2', 'Mars/Olympus'), 'request_invalid', 'an unknown IANA zone')
  refused(t, state, createWorkspace('acme', 'tag3'), 'workspace_exists', 'the id is taken')
  refused(t, state, createWorkspace('other', 'tag1'), 'unavailable', 'the random tag collided: the edge retries with another')
  accepted(state, createWorkspace('other', 'tag2', 'UTC'))
  t.same([...state.workspaces.keys()], ['acme', 'other'])
})

t.test('workspace.update: zone and limits (merged), refused for an unknown workspace or zone', async (t) => {
  const state = createSystemState()
  accepted(state, createWorkspace('acme', 'tag1'))
  const outcome = accepted(state, { type: 'workspace.update', at_ms: nowMs, id: 'acme', limits: { writes_per_minute: 60 } })
  t.equal(outcome.status, 200)
  t.same(outcome.body.limits, { writes_per_minute: 60, reads_per_minute: limitsDefault.reads_per_minute }, 'a partial limits change keeps the other limit')
  t.equal(accepted(state, { type: 'workspace.update', at_ms: nowMs, id: 'acme', time_zone: 'Asia/Tokyo' }).body.timezone, 'Asia/Tokyo')
  refused(t, state, { type: 'workspace.update', at_ms: nowMs, id: 'nope', time_zone: 'UTC' }, 'not_found', 'no such workspace')
  refused(t, state, { type: 'workspace.update', at_ms: nowMs, id: 'acme', time_zone: 'Nowhere/City', limits: { writes_per_minute: 1 } }, 'request_invalid', 'a bad zone refuses the whole update')
})

t.test('key.create and key.revoke: by hash while active; refused for an unknown workspace, an unknown or revoked key', async (t) => {
  const state = createSystemState()
  accepted(state, createWorkspace('acme', 'tag1'))
  const created = accepted(state, createKey('key_1', 'acme'))
  t.equal(created.status, 201)
  t.same(created.body, { id: 'key_1', workspace: 'acme', scopes: ['accounts:read'], accounts: ['assets:*'], name: 'reader', created_at: '2026-12-01T12:00:00.000Z', revoked_at: null })
  t.notOk(JSON.stringify(created.body).includes('hash-key_1'), 'the view never shows the secret hash')
  t.equal(state.keysByHash.get('hash-key_1')?.id, 'key_1')
  refused(t, state, createKey('key_2', 'nope'), 'not_found', 'a key for a workspace that does not exist')
  const revoked = executeSystem(state, { type: 'key.revoke', at_ms: nowMs + 5, id: 'key_1' })
  t.same(revoked, { ok: true, status: 204, body: null })
  t.equal(state.keysByHash.has('hash-key_1'), false, 'a revoked key no longer authenticates')
  t.equal((keyView(state.keys.get('key_1')!) as { revoked_at: string | null }).revoked_at, '2026-12-01T12:00:00.005Z', 'the key stays, with its revocation time')
  refused(t, state, { type: 'key.revoke', at_ms: nowMs, id: 'key_1' }, 'not_found', 'revoking twice')
  refused(t, state, { type: 'key.revoke', at_ms: nowMs, id: 'key_9' }, 'not_found', 'an unknown key')
})

t.test('deterministic: the same commands give the same state', async (t) => {
  const script: SystemCommand[] = [createWorkspace('a', 't1'), createKey('k1', 'a'), createWorkspace('b', 't2', 'UTC'), { type: 'key.revoke', at_ms: nowMs, id: 'k1' }, createKey('k2', 'b')]
  const [left, right] = [createSystemState(), createSystemState()]
  for (const command of script) {
    executeSystem(left, command)
    executeSystem(right, command)
  }
  t.equal(stableSerialize(left), stableSerialize(right))
})

t.test('seal keys: workspace.create carries its key pair (public key in the view); workspace.seal_key gives one to a workspace made without, once', async (t) => {
  const state = createSystemState()
  const withKey = accepted(state, { ...createWorkspace('keyed', 'tgk1'), seal_private_key: 'cHJpdmF0ZQ==', seal_public_key: 'cHVibGlj' } as SystemCommand)
  t.equal(withKey.body.seal_public_key, 'cHVibGlj', 'the public key, never the private one, in the view')
  t.notMatch(JSON.stringify(withKey.body), /cHJpdmF0ZQ/)
  t.same([state.workspaces.get('keyed')!.sealKeyAtCreation], [true])
  accepted(state, createWorkspace('old', 'tgk2'))
  t.same([state.workspaces.get('old')!.sealKey, state.workspaces.get('old')!.sealKeyAtCreation], [null, false], 'the old command shape: no key')
  const give = { type: 'workspace.seal_key', at_ms: nowMs, id: 'old', seal_private_key: 'cHJpdjI=', seal_public_key: 'cHViMg==' } as SystemCommand
  t.equal(accepted(state, give).body.seal_public_key, 'cHViMg==')
  t.equal(state.workspaces.get('old')!.sealKeyAtCreation, false, 'given later: the workspace\'s state gets it through its own log (seal.key)')
  refused(t, state, { ...give, seal_public_key: 'b3RoZXI=' } as SystemCommand, 'request_invalid', 'a second key')
  refused(t, state, { ...give, id: 'nope' } as SystemCommand, 'not_found', 'an unknown workspace')
})

t.test('workspace.update: settings merged and shown; a system snapshot written before settings restores the defaults', async (t) => {
  const state = createSystemState()
  accepted(state, createWorkspace('acme', 'tag1'))
  const updated = accepted(state, { type: 'workspace.update', at_ms: nowMs, id: 'acme', settings: { lock_closed_periods: true } })
  t.same(updated.body.settings, { ...settingsDefault, lock_closed_periods: true })
  t.same(accepted(state, { type: 'workspace.update', at_ms: nowMs, id: 'acme', limits: { writes_per_minute: 5 } }).body.settings, { ...settingsDefault, lock_closed_periods: true }, 'kept by an update that names none')
  const approvals = accepted(state, { type: 'workspace.update', at_ms: nowMs, id: 'acme', settings: { approvals: { write_off_over: 100 } } }).body.settings
  t.same(approvals, { lock_closed_periods: true, approvals: { close_with_residual: false, write_off_over: 100 } }, 'approvals field by field, the rest kept')
  const both = accepted(state, { type: 'workspace.update', at_ms: nowMs, id: 'acme', settings: { approvals: { close_with_residual: true } } }).body.settings
  t.same(both.approvals, { close_with_residual: true, write_off_over: 100 }, 'the field not named kept')
  const { settings: _settings, ...older } = state.workspaces.get('acme')!
  const restored = createSystemState()
  restoreSystem(restored, { workspaces: [older as WorkspaceRecord], keys: [] })
  t.same((workspaceView(restored.workspaces.get('acme')!) as any).settings, settingsDefault)
  // Written after lock_closed_periods and before approvals existed: approvals off.
  const beforeApprovals = createSystemState()
  restoreSystem(beforeApprovals, { workspaces: [{ ...older, settings: { lock_closed_periods: true } } as WorkspaceRecord], keys: [] })
  t.same((workspaceView(beforeApprovals.workspaces.get('acme')!) as any).settings, { ...settingsDefault, lock_closed_periods: true }, 'a snapshot before approvals: off')
})
