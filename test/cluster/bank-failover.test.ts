/**
 * @module The bank workload across a failover (docs/CLUSTER.md, "What the fault tests show"): transfers between five
 * accounts through three cluster nodes (child processes, one real PostgreSQL), the owner killed (SIGKILL) midway. After
 * it: every transfer acknowledged, the balances exactly those the acknowledged transfers make (the five accounts'
 * total conserved), each surviving node's local log equal, record for record, to the database's, and each of their
 * data dirs, replayed by a single node, giving the same balances.
 */

import t from 'tap'
import { balancesOf, localLogDifference, placementOf, request, startCluster, startLoad, testDatabase, waitFor } from '../support/cluster-nodes.ts'
import { call, startTestService } from '../support/service.ts'

// Starting node processes under tsx takes a while on a busy machine; each step is bounded (waitFor, attempts).
t.setTimeout(600_000)

const database = testDatabase(t)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const accounts = ['assets:acct-0', 'assets:acct-1', 'assets:acct-2', 'assets:acct-3', 'assets:acct-4']
const openingBalance = 1_000

/** Transfer i of a writer: a fixed pseudo-random pair and amount, so the expected balances can be recomputed. */
function transferOf(writer: number, i: number): { from: string; to: string; amount: number } {
  const from = (writer * 7 + i * 3) % accounts.length
  const to = (from + 1 + ((writer + i) % (accounts.length - 1))) % accounts.length
  return { from: accounts[from], to: accounts[to], amount: 1 + ((writer * 31 + i * 17) % 50) }
}

t.test('transfers across a SIGKILL failover: balances conserved and exact, every node\'s log the database\'s', async (t) => {
  const { nodes, key } = await startCluster(t, database.db, database.url, ['bank-1', 'bank-2', 'bank-3'], [...accounts, 'equity:opening'])
  const [owner, ...standbys] = nodes
  for (const account of accounts) {
    const reply = await request(owner.process.baseUrl, key, 'POST', '/v2/entries', { lines: [{ account, amount: openingBalance }, { account: 'equity:opening', amount: -openingBalance }], description: `open ${account}` })
    t.equal(reply.status, 201)
  }
  let alive = nodes
  const load = startLoad(() => alive.map((node) => node.process.baseUrl), key, 4, 100, (writer, i, description) => {
    const { from, to, amount } = transferOf(writer, i)
    return { lines: [{ account: to, amount }, { account: from, amount: -amount }], description }
  })
  await sleep(1_500)
  alive = standbys
  const killedAtMs = Date.now()
  owner.process.child.kill('SIGKILL')
  await owner.process.exited
  const goneAtMs = Date.now()
  t.ok(await waitFor(async () => load.acknowledged.some((write) => write.sentMs >= goneAtMs), 15_000), `transfers succeed again after the kill (${Date.now() - killedAtMs} ms)`)
  await sleep(1_500)
  await load.stop()
  t.same(load.unanswered, [], 'every transfer acknowledged in the end (retried with its key)')

  const expected: Record<string, number> = Object.fromEntries(accounts.map((account) => [account, openingBalance]))
  for (const write of load.acknowledged) {
    const [writer, i] = write.description.slice(1).split('-').map(Number)
    const { from, to, amount } = transferOf(writer, i)
    expected[from] -= amount
    expected[to] += amount
  }
  const placement = await placementOf(database.db)
  t.ok(placement !== null && placement.epoch === 2 && standbys.some((node) => node.id === placement.owner), `a standby owns the shard: ${JSON.stringify(placement)}`)
  const newOwner = standbys.find((node) => node.id === placement?.owner) ?? standbys[0]
  const balances = await balancesOf(newOwner.process.baseUrl, key, accounts)
  t.same(balances, expected, `the balances are those of the ${load.acknowledged.length} acknowledged transfers`)
  t.equal(Object.values(balances).reduce((sum, balance) => sum + balance, 0), accounts.length * openingBalance, 'the total is conserved')

  // Each surviving node stopped cleanly, then its data dir checked against the database and replayed alone.
  for (const node of standbys) {
    node.process.child.kill('SIGTERM')
    await node.process.exited
    t.equal(await localLogDifference(database.db, node.dataDir), null, `${node.id}'s local log is the database's`)
    const replayed = await startTestService({ dataDir: node.dataDir, apiKey: key, env: { SHARDS: '1' } })
    try {
      t.same(await balancesOf(replayed.baseUrl, key, accounts), expected, `${node.id}'s data dir replayed alone gives the same balances`)
      const checked = await call(replayed.baseUrl, 'GET', '/v2/entries?limit=1', { key })
      t.equal(checked.status, 200)
    } finally {
      await replayed.destroy()
    }
  }
})
