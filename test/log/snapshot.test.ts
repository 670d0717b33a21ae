/** Snapshots: a clean stop snapshots every workspace and the system, the next start reads no log below them, and the state is identical. */
import t from 'tap'
import { adminCreateKey, adminCreateWorkspace, createAccount, postEntryOk, raiseLimits } from '../support/api.ts'
import { call, startTestService } from '../support/service.ts'

async function view(baseUrl: string, key: string): Promise<unknown> {
  const accounts = (await call(baseUrl, 'GET', '/v2/accounts?limit=1000', { key })).body
  const entries = (await call(baseUrl, 'GET', '/v2/entries?limit=1000', { key })).body
  const balances = []
  for (const account of accounts.data) balances.push((await call(baseUrl, 'GET', `/v2/accounts/${account.id}/balance`, { key })).body.balance)
  return { accounts, entries, balances }
}

t.test('stop writes workspace and system snapshots; start replays only the log after them', async (t) => {
  let running = await startTestService()
  const { dataDir, apiKey } = running
  await raiseLimits(running, 'default')
  await adminCreateWorkspace(running, 'second', 'Europe/Berlin')
  const second = await adminCreateKey(running, 'second', ['accounts:read', 'accounts:write', 'entries:read', 'entries:write'])
  const idle = await adminCreateKey(running, 'default', ['accounts:read'])
  for (const [key, prefix] of [[apiKey, 'a'], [second.secret, 'b']] as const) {
    await createAccount(running.baseUrl, key, `assets:${prefix}`)
    await createAccount(running.baseUrl, key, `income:${prefix}`)
    for (let i = 1; i <= 20; i++) await postEntryOk(running.baseUrl, key, [{ account: `assets:${prefix}`, amount: i }, { account: `income:${prefix}`, amount: -i }])
  }
  const before = [await view(running.baseUrl, apiKey), await view(running.baseUrl, second.secret)]
  await running.stop()

  running = await startTestService({ dataDir, apiKey })
  t.equal(running.service.replay.records, 0, 'nothing in the log is newer than the snapshots')
  t.equal(running.service.replay.snapshots, 2, 'both workspaces start from their snapshots')
  t.same([await view(running.baseUrl, apiKey), await view(running.baseUrl, second.secret)], before, 'state is identical after the snapshot start')
  t.equal((await call(running.baseUrl, 'GET', '/v2/accounts', { key: idle.secret })).status, 200, 'keys are restored from the system snapshot')

  // New work after the snapshot start; a workspace created after it; then a start without a clean stop's snapshot.
  await postEntryOk(running.baseUrl, apiKey, [{ account: 'assets:a', amount: 1000 }, { account: 'income:a', amount: -1000 }])
  await adminCreateWorkspace(running, 'third')
  const third = await adminCreateKey(running, 'third', ['accounts:read', 'accounts:write'])
  await createAccount(running.baseUrl, third.secret, 'assets:c')
  for (const actor of running.service.runtime.actors.values()) actor.commandsSinceSnapshot = 0
  const afterMore = await view(running.baseUrl, apiKey)
  await running.stop()

  running = await startTestService({ dataDir, apiKey })
  t.ok(running.service.replay.records >= 1, `the log tail after the snapshots is replayed (${running.service.replay.records} records)`)
  t.same(await view(running.baseUrl, apiKey), afterMore, 'snapshot plus log tail gives the same state')
  t.equal((await call(running.baseUrl, 'GET', '/v2/accounts/assets:c', { key: third.secret })).status, 200, 'the workspace created after the snapshot is back')
  await running.destroy()
})
