/** @module The throwaway PostgreSQL (scripts/local-postgres.ts): starts on a free port with the small settings, stops leaving nothing. */

import fs from 'node:fs'
import pg from 'pg'
import t from 'tap'
import { processAlive, startLocalPostgres } from '../../scripts/local-postgres.ts'

t.test('starts with the small settings, answers queries, and stop ends the server and removes its directory', async (t) => {
  const server = await startLocalPostgres()
  t.teardown(() => server.stop())
  const client = new pg.Client({ connectionString: server.url })
  await client.connect()
  try {
    const settings = await client.query<{ name: string; setting: string }>(
      `SELECT name, current_setting(name) AS setting FROM unnest(ARRAY['fsync', 'shared_buffers', 'max_connections', 'listen_addresses', 'unix_socket_directories']) AS name`)
    const byName = Object.fromEntries(settings.rows.map((row) => [row.name, row.setting]))
    t.equal(byName.fsync, 'on')
    t.equal(byName.shared_buffers, '16MB')
    t.equal(byName.max_connections, '20')
    t.equal(byName.listen_addresses, '127.0.0.1')
    t.ok(byName.unix_socket_directories.startsWith(server.dir), 'the socket lies inside the temporary directory')
    if (process.getuid?.() === 0) {
      const owner = await client.query<{ usename: string }>('SELECT current_user AS usename')
      t.equal(owner.rows[0].usename, 'postgres')
      t.not(fs.statSync(`${server.dir}/data`).uid, 0, 'as root the server runs as an unprivileged user')
    }
  } finally {
    await client.end()
  }
  t.ok(processAlive(server.pid))
  await server.stop()
  t.notOk(processAlive(server.pid), 'the server process is gone')
  t.notOk(fs.existsSync(server.dir), 'its directory is removed')
})

t.test('two servers at once get their own ports and directories', async (t) => {
  const [a, b] = await Promise.all([startLocalPostgres(), startLocalPostgres()])
  t.teardown(async () => { await a.stop(); await b.stop() })
  t.not(a.port, b.port)
  t.not(a.dir, b.dir)
})
