/**
 * @module Finding the primary among several PostgreSQL servers (src/cluster/pg-connect.ts): multi-host URLs as
 * pg_auto_failover prints them, the read-write host chosen, and the pool moving to the other server when its own turns
 * read only or stops (two plain local servers stand in for a primary and a standby), bounded when none fits.
 */

import t from 'tap'
import { freePort, startLocalPostgres, type LocalPostgres } from '../../scripts/local-postgres.ts'
import { connectTarget, isFailoverError, NoPrimaryError, parseDatabaseUrl, PrimaryPool } from '../../src/cluster/pg-connect.ts'
import { setReadOnly } from '../support/cluster-nodes.ts'

let first: LocalPostgres
let second: LocalPostgres

t.before(async () => { [first, second] = await Promise.all([startLocalPostgres(), startLocalPostgres()]) })
t.teardown(async () => { await Promise.all([first.stop(), second.stop()]) })

const urlOf = (ports: readonly number[], attrs = 'read-write') => `postgres://postgres@${ports.map((port) => `127.0.0.1:${port}`).join(',')}/postgres?target_session_attrs=${attrs}&sslmode=prefer`

t.test('multi-host URLs are taken apart as libpq reads them', async (t) => {
  const target = parseDatabaseUrl('postgres://127.0.0.1:5501,127.0.0.1:5502,127.0.0.1:5503/postgres?target_session_attrs=read-write&sslmode=prefer')
  t.same(target.hosts, [{ host: '127.0.0.1', port: 5501 }, { host: '127.0.0.1', port: 5502 }, { host: '127.0.0.1', port: 5503 }])
  t.equal(target.readWrite, true)
  t.same([target.shared.database, target.shared.user, target.shared.ssl], ['postgres', undefined, false], 'prefer falls back to plain')
  const single = parseDatabaseUrl('postgresql://app:s%40cret@db.example:6000/books?sslmode=require&application_name=trueup')
  t.same(single.hosts, [{ host: 'db.example', port: 6000 }])
  t.same([single.shared.user, single.shared.password, single.shared.database, single.shared.application_name], ['app', 's@cret', 'books', 'trueup'])
  t.same(single.shared.ssl, { rejectUnauthorized: false })
  t.equal(single.readWrite, false, 'any server by default')
  t.same(parseDatabaseUrl('postgres://[::1]:7000,[::1]/x').hosts, [{ host: '::1', port: 7000 }, { host: '::1', port: 5432 }])
  t.equal(parseDatabaseUrl('postgres://h/x?target_session_attrs=primary').readWrite, true)
  t.same(parseDatabaseUrl('postgres:///x?host=/run/postgresql&port=5433').hosts, [{ host: '/run/postgresql', port: 5433 }], 'a socket directory as a parameter')
  t.same(parseDatabaseUrl('postgres:///x').hosts, [{ host: 'localhost', port: 5432 }])
  t.throws(() => parseDatabaseUrl('mysql://h/x'), /postgres:\/\//)
  t.throws(() => parseDatabaseUrl('postgres://h/x?target_session_attrs=standby'), /not supported/)
  t.throws(() => parseDatabaseUrl('postgres://a,,b/x'), /empty host/)
})

t.test('errors that mean another server may be the primary now', async (t) => {
  t.ok(isFailoverError(new Error('Connection terminated unexpectedly')))
  t.ok(isFailoverError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })))
  for (const code of ['25006', '57P01', '57P03', '08006']) t.ok(isFailoverError(Object.assign(new Error(code), { code })), code)
  for (const code of ['23505', '42601', '40P01']) t.notOk(isFailoverError(Object.assign(new Error(code), { code })), code)
})

t.test('the first read-write host is chosen; without target_session_attrs the first that answers', async (t) => {
  await setReadOnly(second, true)
  t.teardown(() => setReadOnly(second, false))
  const nobody = await freePort()
  const rw = await connectTarget(parseDatabaseUrl(urlOf([nobody, second.port, first.port])), 1_000)
  t.equal(rw.host.port, first.port, 'the dead host and the read-only one are skipped')
  await rw.client.end()
  const any = await connectTarget(parseDatabaseUrl(urlOf([nobody, second.port, first.port], 'any')), 1_000)
  t.equal(any.host.port, second.port)
  await any.client.end()
  await t.rejects(connectTarget(parseDatabaseUrl(urlOf([nobody, second.port])), 1_000), NoPrimaryError)
})

t.test('the pool moves to the new read-write server when its own turns read only; with none, it gives up after its find window', async (t) => {
  const pool = new PrimaryPool(urlOf([first.port, second.port], 'any'), { size: 2, writer: true, findWindowMs: 5_000, connectTimeoutMs: 1_000 })
  t.teardown(() => pool.end())
  await setReadOnly(second, true)
  await pool.query('CREATE TABLE IF NOT EXISTS probe (n int)')
  t.equal(pool.host?.port, first.port)

  // A promotion: the old primary refuses writes, the other accepts them.
  await setReadOnly(first, true)
  await setReadOnly(second, false)
  const refused = await pool.query('INSERT INTO probe VALUES (1)').then(() => null, (error: unknown) => error)
  t.match(refused, { code: '25006' }, 'the write in flight fails (its caller settles the outcome)')
  t.equal(pool.host, null, 'the server is forgotten')
  await pool.query('CREATE TABLE IF NOT EXISTS probe (n int)')
  await pool.query('INSERT INTO probe VALUES (2)')
  t.equal(pool.host?.port, second.port, 'the next queries go to the new primary')
  await setReadOnly(first, false)

  // No server accepts writes: the query waits for the find window, no longer, and says why.
  await setReadOnly(second, true)
  const started = Date.now()
  await pool.query('INSERT INTO probe VALUES (3)').catch(() => undefined)
  await setReadOnly(first, true)
  await t.rejects(pool.query('INSERT INTO probe VALUES (4)'), NoPrimaryError)
  t.ok(Date.now() - started < 15_000, 'bounded by the find window')
  await Promise.all([setReadOnly(first, false), setReadOnly(second, false)])
})

t.test('the pool finds the other server when its own stops', async (t) => {
  const pool = new PrimaryPool(urlOf([second.port, first.port]), { size: 2, findWindowMs: 5_000, connectTimeoutMs: 1_000 })
  t.teardown(() => pool.end())
  t.equal((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0].one, 1)
  t.equal(pool.host?.port, second.port)
  await second.stop()
  await pool.query('SELECT 1').catch(() => undefined)
  t.equal((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0].one, 1)
  t.equal(pool.host?.port, first.port)
})
