/**
 * @module A data dir written by a single node (no cluster) started in cluster mode against a database that holds none
 * of its logs: its records become the database's logs, the node serves the same books, and a second node, with an
 * empty data dir, catches up from the database and serves them after the first is killed (docs/CLUSTER.md, "A single
 * node's data dir joining a cluster"). Real processes, a real PostgreSQL; with SHARDS=1 and SHARDS=2.
 */

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { adminToken, balancesOf, killNodes, request, resetDatabase, restartNode, startNode, testDatabase, waitFor, type ClusterNode } from '../support/cluster-nodes.ts'
import { startProcess } from '../support/process.ts'

t.setTimeout(300_000)

const database = testDatabase(t)

const accounts = ['assets:bank', 'income:sales', 'expenses:rent']

for (const shards of ['1', '2']) {
  t.test(`SHARDS=${shards}: a single node's books, started in cluster mode on an empty database, are served by it and then by a standby`, async (t) => {
    await resetDatabase(database.db)
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-single-joins-'))
    const single = await startProcess({ dataDir, adminToken, env: { SHARDS: shards } })
    const key = single.apiKey
    t.ok(key, 'the single node printed its API key')
    const statuses: number[] = []
    for (const name of accounts) statuses.push((await request(single.baseUrl, key!, 'POST', '/v2/accounts', { name })).status)
    for (let i = 1; i <= 30; i++) {
      const body = { lines: [{ account: 'assets:bank', amount: i }, { account: i % 3 === 0 ? 'expenses:rent' : 'income:sales', amount: -i }], description: `sale ${i}` }
      statuses.push((await request(single.baseUrl, key!, 'POST', '/v2/entries', body)).status)
    }
    t.same(statuses, Array(33).fill(201), 'the single node took 3 accounts and 30 entries')
    const before = await balancesOf(single.baseUrl, key!, accounts)
    single.child.kill('SIGTERM')
    t.equal((await single.exited).code, 0, 'the single node stopped cleanly')

    const nodes: ClusterNode[] = []
    t.teardown(() => killNodes(nodes))
    nodes.push(await restartNode(database.url, { id: 'node-1', process: single, dataDir }, { SHARDS: shards }))
    const first = nodes[0].process
    t.same(await balancesOf(first.baseUrl, key!, accounts), before, 'in cluster mode it serves the same books, with the same key')
    const logs = (await database.db.query<{ shard: number; records: string }>('SELECT shard, sum(count) AS records FROM log GROUP BY shard ORDER BY shard')).rows
    t.ok(logs.length >= 1 && logs.every((row) => Number(row.records) > 0), `the database holds its logs now: ${JSON.stringify(logs)}`)
    t.ok([...first.stdout, ...first.stderr].join('\n').includes("wrote the local log's records 1.."), 'and it said it wrote them')
    const after = { lines: [{ account: 'assets:bank', amount: 1_000 }, { account: 'income:sales', amount: -1_000 }], description: 'after joining' }
    t.equal((await request(first.baseUrl, key!, 'POST', '/v2/entries', after)).status, 201, 'a write after joining is answered')
    const expected = await balancesOf(first.baseUrl, key!, accounts)

    nodes.push(await startNode(database.url, 'node-2', { SHARDS: shards }))
    const second = nodes[1].process
    t.ok(await waitFor(async () => {
      const reply = await request(second.baseUrl, key!, 'GET', '/v2/accounts/assets%3Abank/balance')
      return reply.status === 200 && reply.body.balance === expected['assets:bank']
    }, 30_000), 'the second node answers with the same books (forwarding to the owner)')
    await killNodes([nodes[0]])
    t.ok(await waitFor(async () => {
      const reply = await request(second.baseUrl, key!, 'GET', '/v2/accounts/assets%3Abank/balance', undefined, {}, 5_000)
      return reply.status === 200
    }, 30_000), 'after the first node is killed the second one serves')
    t.same(await balancesOf(second.baseUrl, key!, accounts), expected, 'the same books, from what it caught up from the database')
  })
}
