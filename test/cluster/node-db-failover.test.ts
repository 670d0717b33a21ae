/**
 * @module A cluster node across a failover of its database (docs/CLUSTER.md, "Failover of the database"), with two
 * plain local PostgreSQL servers standing in for a primary and a standby: CLUSTER_DATABASE_URL lists both with
 * target_session_attrs=read-write; the primary turns read only with a write in flight, its rows are copied to the
 * other server (as synchronous replication would have), which then accepts writes. The write in flight is answered
 * 201 once it is on the new primary (not before, never twice); later writes and the lease go there too. The outage
 * outlasts the 3 s lease; nobody took the shard meanwhile, so the node keeps it at the same epoch.
 */

import pg from 'pg'
import t from 'tap'
import { startLocalPostgres, type LocalPostgres } from '../../scripts/local-postgres.ts'
import { recordsOfRows, type GroupRow } from '../../src/cluster/log-group.ts'
import { setReadOnly } from '../support/cluster-nodes.ts'
import { call, startTestService } from '../support/service.ts'

let primary: LocalPostgres
let standby: LocalPostgres

t.before(async () => { [primary, standby] = await Promise.all([startLocalPostgres(), startLocalPostgres()]) })
t.teardown(async () => { await Promise.all([primary.stop(), standby.stop()]) })

async function onServer<T>(server: LocalPostgres, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: server.url })
  await client.connect()
  try {
    // This session may write even on a server turned read only (default_transaction_read_only is only a default).
    await client.query('SET default_transaction_read_only = off')
    return await work(client)
  } finally {
    await client.end()
  }
}

/** What synchronous replication gives the promoted standby: the same tables and rows. */
async function copyTables(from: LocalPostgres, to: LocalPostgres): Promise<void> {
  const [placement, log] = await onServer(from, async (client) => [
    (await client.query('SELECT shard, owner, epoch, lease_until FROM placement')).rows,
    (await client.query('SELECT shard, seq, epoch, count, record FROM log ORDER BY shard, seq')).rows,
  ])
  await onServer(to, async (client) => {
    await client.query('CREATE TABLE placement (shard integer PRIMARY KEY, owner text NOT NULL, epoch bigint NOT NULL, lease_until timestamptz NOT NULL)')
    await client.query('CREATE TABLE log (shard integer NOT NULL, seq bigint NOT NULL, epoch bigint NOT NULL, record bytea NOT NULL, count integer NOT NULL DEFAULT 1, PRIMARY KEY (shard, seq))')
    for (const row of placement) await client.query('INSERT INTO placement VALUES ($1, $2, $3, $4)', [row.shard, row.owner, row.epoch, row.lease_until])
    for (const row of log) await client.query('INSERT INTO log (shard, seq, epoch, count, record) VALUES ($1, $2, $3, $4, $5)', [row.shard, row.seq, row.epoch, row.count, row.record])
  })
}

/** Shard 0's records on the server (its rows, one per group commit, split). */
const logOf = (server: LocalPostgres) => onServer(server, async (client) =>
  recordsOfRows((await client.query<GroupRow>('SELECT seq, epoch, count, record FROM log WHERE shard = 0 ORDER BY seq')).rows, 0, Number.POSITIVE_INFINITY)
    .map((row) => row.record.toString('latin1')))

t.test('a write in flight across the failover is answered 201 once on the new primary; the node carries on there', async (t) => {
  await setReadOnly(standby, true)
  const url = `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres?target_session_attrs=read-write&sslmode=prefer`
  const node = await startTestService({ env: { SHARDS: '1', CLUSTER_DATABASE_URL: url, NODE_ID: 'node-f', NODE_URL: 'http://127.0.0.1:1/node-f' }, warn: () => undefined })
  t.teardown(() => node.destroy())
  const post = (name: string) => call(node.baseUrl, 'POST', '/v2/accounts', { key: node.apiKey, body: { name } })
  t.equal((await post('assets:before')).status, 201)

  // The primary goes (it refuses writes from now on); a write arrives meanwhile.
  await setReadOnly(primary, true)
  let answered = false
  const inFlight = post('assets:in-flight').then((reply) => { answered = true; return reply })
  // Longer than the 3 s lease: nobody else takes the shard meanwhile, so the node keeps it (same epoch).
  await new Promise((resolve) => setTimeout(resolve, 4_000))
  t.equal(answered, false, 'no answer while no server accepts the write')

  // The standby is promoted with what was replicated to it.
  await copyTables(primary, standby)
  const lapsed = await onServer(standby, async (client) => (await client.query<{ lapsed: boolean }>('SELECT lease_until < clock_timestamp() AS lapsed FROM placement WHERE shard = 0')).rows[0].lapsed)
  t.equal(lapsed, true, 'the outage outlasted the lease')
  await setReadOnly(standby, false)
  const reply = await inFlight
  t.equal(reply.status, 201, reply.text)
  const promoted = await logOf(standby)
  t.equal(promoted.filter((record) => record.includes('assets:in-flight')).length, 1, 'on the new primary, once')
  t.notOk((await logOf(primary)).some((record) => record.includes('assets:in-flight')), 'never written to the old one')

  t.equal((await post('assets:after')).status, 201, 'later writes go to the new primary')
  t.equal((await logOf(standby)).length, promoted.length + 1)
  const accounts = await call(node.baseUrl, 'GET', '/v2/accounts', { key: node.apiKey })
  for (const name of ['assets:before', 'assets:in-flight', 'assets:after']) t.match(accounts.text, name)
  // The lease is renewed through the new primary.
  await new Promise((resolve) => setTimeout(resolve, 1_500))
  const lease = await onServer(standby, async (client) => (await client.query<{ running: boolean }>('SELECT lease_until > clock_timestamp() AS running FROM placement WHERE shard = 0')).rows[0].running)
  t.equal(lease, true, 'the lease runs on the new primary')
  const epoch = await onServer(standby, async (client) => (await client.query<{ owner: string; epoch: string }>('SELECT owner, epoch FROM placement WHERE shard = 0')).rows[0])
  t.same([epoch.owner, Number(epoch.epoch)], ['node-f', 1], 'held at the same epoch: nobody took it')
})
