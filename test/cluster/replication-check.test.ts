/** @module The start-up check of the database's replication (src/cluster/replication-check.ts) against a real PostgreSQL without standbys. */

import pg from 'pg'
import t from 'tap'
import { checkReplication } from '../../src/cluster/replication-check.ts'
import { startLocalPostgres, type LocalPostgres } from '../../scripts/local-postgres.ts'

let server: LocalPostgres
t.before(async () => { server = await startLocalPostgres() })
t.teardown(() => server.stop())

async function setSystem(setting: string, value: string): Promise<void> {
  const client = new pg.Client({ connectionString: server.url })
  await client.connect()
  await client.query(`ALTER SYSTEM SET ${setting} = '${value}'`)
  await client.query('SELECT pg_reload_conf()')
  await client.end()
  await new Promise((resolve) => setTimeout(resolve, 300))
}

t.test('a server without synchronous standbys is reported, with the reason', async (t) => {
  const plain = await checkReplication(server.url)
  t.same([plain.synchronousCommit, plain.synchronousStandbyNames, plain.synchronousStandbys], ['on', '', 0])
  t.match(plain.warning, /synchronous_standby_names is empty/)

  await setSystem('synchronous_standby_names', 'ANY 1 (a, b)')
  const named = await checkReplication(server.url)
  t.equal(named.synchronousStandbyNames, 'ANY 1 (a, b)')
  t.match(named.warning, /no synchronous standby is connected/)

  await setSystem('synchronous_commit', 'local')
  t.match((await checkReplication(server.url)).warning, /synchronous_commit is local/)
  await setSystem('synchronous_standby_names', '')
  await setSystem('synchronous_commit', 'on')
})

t.test('an unreachable database fails the check rather than passing it', async (t) => {
  await t.rejects(checkReplication('postgres://postgres@127.0.0.1:1/postgres', 1_000))
})
