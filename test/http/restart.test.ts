/** Restart (docs/RELIABILITY.md): stop, start again on the same data dir, and everything is there; with and without snapshots. */
import fs from 'node:fs'
import t from 'tap'
import {
  adminCreateKey, adminCreateWorkspace, assertError, createAccount, postEntryOk, raiseLimits, readWorkspace, scopesAll, type Asserts,
} from '../support/api.ts'
import { skipStopSnapshots, snapshotNow } from '../support/probes.ts'
import { call, startTestService, type TestService } from '../support/service.ts'

const instants = ['2025-06-30T23:59:59.999Z', '2026-01-01T00:00:00.000Z', '2026-01-15T12:00:00.000Z', new Date(Date.now() + 86_400_000).toISOString()]

/** A small, varied history: accounts, back-dated entries, a rename, a re-tag. */
async function populate(service: TestService, prefix: string, count: number): Promise<void> {
  const { baseUrl, apiKey: key } = service
  const names = [`assets:${prefix}-bank`, `assets:${prefix}-cash`, `income:${prefix}-sales`]
  for (const name of names) await createAccount(baseUrl, key, name, [prefix])
  for (let i = 0; i < count; i++) {
    const amount = 100 + i * 7
    const day = String(1 + (i * 11) % 28).padStart(2, '0')
    await postEntryOk(baseUrl, key, [{ account: names[i % 2], amount }, { account: names[2], amount: -amount }], {
      effective_at: `2026-01-${day}T${String(i % 24).padStart(2, '0')}:00:00+01:00`, description: `${prefix} #${i}`, metadata: { i: String(i) },
    })
  }
  const renamed = await call(baseUrl, 'PATCH', `/v2/accounts/${encodeURIComponent(names[1])}`, { key, body: { name: `assets:${prefix}-till`, tags: ['renamed'] } })
  if (renamed.status !== 200) throw new Error(`rename: ${renamed.status} ${renamed.text}`)
}

function assertSameWorkspace(t: Asserts & { same(found: any, wanted: any, message: string): unknown }, after: unknown, before: unknown, label: string): void {
  t.same(after, before, `${label}: accounts, entries and balances as before`)
}

/** Stops every service of a test (last started first), then removes their shared data dir. */
function cleanup(t: { teardown(fn: () => Promise<void>): unknown }, services: TestService[]): void {
  t.teardown(async () => {
    for (const service of [...services].reverse()) await service.stop()
    if (services.length > 0) fs.rmSync(services[0].dataDir, { recursive: true, force: true })
  })
}

t.test('stop and start again: state, keys and revocations survive', async (t) => {
  const services: TestService[] = []
  cleanup(t, services)
  const first = await startTestService()
  services.push(first)
  await raiseLimits(first, 'default')
  await populate(first, 'r', 12)
  const reader = await adminCreateKey(first, 'default', ['accounts:read', 'entries:read'])
  const revoked = await adminCreateKey(first, 'default', scopesAll)
  t.equal((await call(first.baseUrl, 'DELETE', `/admin/keys/${revoked.id}`, { key: first.adminToken })).status, 204)
  t.equal((await adminCreateWorkspace(first, 'beta', 'Europe/Paris')).status, 201)
  const beta = await adminCreateKey(first, 'beta', scopesAll)
  const betaAccount = await createAccount(first.baseUrl, beta.secret, 'assets:beta')
  const idempotent = { lines: [{ account: 'assets:r-bank', amount: 5 }, { account: 'income:r-sales', amount: -5 }] }
  const original = await call(first.baseUrl, 'POST', '/v2/entries', { key: first.apiKey, body: idempotent, headers: { 'idempotency-key': 'restart-1' } })
  t.equal(original.status, 201)
  const before = await readWorkspace(first.baseUrl, first.apiKey, instants)
  t.ok(before.entries.length === 13 && before.accounts.length === 3, 'the history was written')
  await first.stop()

  const second = await startTestService({ dataDir: first.dataDir, apiKey: first.apiKey })
  services.push(second)
  t.equal(second.apiKey, first.apiKey, 'no second first start: no new key was printed')
  assertSameWorkspace(t, await readWorkspace(second.baseUrl, second.apiKey, instants), before, 'after restart')
  t.equal((await call(second.baseUrl, 'GET', '/v2/accounts', { key: reader.secret })).status, 200, 'a key made through the admin API still authenticates')
  assertError(t, await call(second.baseUrl, 'POST', '/v2/accounts', { key: reader.secret, body: { name: 'assets:x' } }), 403, 'scope_missing', 'and keeps its scopes')
  assertError(t, await call(second.baseUrl, 'GET', '/v2/accounts', { key: revoked.secret }), 401, 'unauthenticated', 'a revoked key stays revoked')
  t.same((await call(second.baseUrl, 'GET', `/v2/accounts/${betaAccount.id}`, { key: beta.secret })).body, betaAccount, 'the second workspace and its key survive')
  assertError(t, await adminCreateWorkspace(second, 'beta'), 409, 'workspace_exists', 'the workspace id is still taken')
  assertError(t, await adminCreateWorkspace(second, 'default'), 409, 'workspace_exists', 'so is default')

  const replay = await call(second.baseUrl, 'POST', '/v2/entries', { key: second.apiKey, body: idempotent, headers: { 'idempotency-key': 'restart-1' } })
  t.equal(replay.status, 201, 'an Idempotency-Key survives the restart')
  t.same(replay.body, original.body, 'with the stored answer')
  t.equal(replay.headers.get('replayed'), 'true', 'marked Replayed')

  const next = await postEntryOk(second.baseUrl, second.apiKey, [{ account: 'assets:r-bank', amount: 1 }, { account: 'income:r-sales', amount: -1 }])
  t.notOk(before.entries.some((e) => e.id === next.id), 'a new entry gets a new id, not one of before the restart')
  const account = await createAccount(second.baseUrl, second.apiKey, 'assets:after-restart')
  t.notOk(before.accounts.some((a) => a.id === account.id), 'a new account gets a new id')
  t.equal((await call(second.baseUrl, 'POST', '/v2/accounts', { key: second.apiKey, body: { name: 'assets:r-bank' } })).status, 409, 'names are still taken')
  t.equal((await call(second.baseUrl, 'POST', '/v2/accounts', { key: second.apiKey, body: { name: 'assets:r-cash' } })).status, 201, 'a rename survives: the old name is free')
})

t.test('snapshots: restart from a snapshot, and from a snapshot plus the log after it', async (t) => {
  const env = { SNAPSHOT_COMMANDS_INTERVAL: '5' }
  const services: TestService[] = []
  cleanup(t, services)
  const first = await startTestService({ env })
  services.push(first)
  await raiseLimits(first, 'default')
  await populate(first, 's', 10)
  t.ok((await snapshotNow(first.service)) >= 1, 'a snapshot was written')
  await populate(first, 't', 4)
  const before = await readWorkspace(first.baseUrl, first.apiKey, instants)
  await first.stop()

  const second = await startTestService({ dataDir: first.dataDir, apiKey: first.apiKey, env })
  services.push(second)
  t.ok(second.service.replay.snapshots >= 1, `replay used ${second.service.replay.snapshots} snapshot(s)`)
  assertSameWorkspace(t, await readWorkspace(second.baseUrl, second.apiKey, instants), before, 'from the shutdown snapshot')

  // Commands after a snapshot that no later snapshot covers must come back from the log alone.
  t.ok((await snapshotNow(second.service)) === 0, 'nothing new to snapshot right after start')
  await populate(second, 'u', 3)
  t.ok((await snapshotNow(second.service)) >= 1, 'a snapshot mid-way')
  await populate(second, 'v', 6)
  const key = await adminCreateKey(second, 'default', ['entries:read'])
  const idempotent = { lines: [{ account: 'assets:v-bank', amount: 9 }, { account: 'income:v-sales', amount: -9 }] }
  const original = await call(second.baseUrl, 'POST', '/v2/entries', { key: second.apiKey, body: idempotent, headers: { 'idempotency-key': 'after-snapshot' } })
  t.equal(original.status, 201)
  const tail = await readWorkspace(second.baseUrl, second.apiKey, instants)
  // Pretend the process died here: keep the shutdown from writing a snapshot of the tail.
  await skipStopSnapshots(second.service)
  await second.stop()

  const third = await startTestService({ dataDir: first.dataDir, apiKey: first.apiKey, env })
  services.push(third)
  t.ok(third.service.replay.snapshots >= 1, 'replay started from the mid-way snapshot')
  assertSameWorkspace(t, await readWorkspace(third.baseUrl, third.apiKey, instants), tail, 'snapshot plus the log after it')
  t.equal((await call(third.baseUrl, 'GET', '/v2/entries', { key: key.secret })).status, 200, 'a key made after the snapshot authenticates')
  const replay = await call(third.baseUrl, 'POST', '/v2/entries', { key: third.apiKey, body: idempotent, headers: { 'idempotency-key': 'after-snapshot' } })
  t.same(replay.body, original.body, 'an Idempotency-Key stored after the snapshot replays')
  t.equal(replay.headers.get('replayed'), 'true')
  const next = await postEntryOk(third.baseUrl, third.apiKey, [{ account: 'assets:v-bank', amount: 1 }, { account: 'income:v-sales', amount: -1 }])
  t.notOk(tail.entries.some((e) => e.id === next.id), 'new ids continue after the replayed tail')
})
