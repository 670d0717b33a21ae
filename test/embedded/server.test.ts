/** createServer (src/embedded/server.ts): the whole HTTP service in-process on port 0, a request, stop, start again. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { createServer, Ledger, StartRefused } from '../../src/index.ts'
import { call } from '../support/service.ts'
import { version } from '../../src/version.ts'

t.test('createServer on port 0: a request, stop, and again on the same data dir', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-embedded-'))
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))
  const server = await createServer({ dataDir, port: 0, logLevel: 'silent' })
  t.ok(server.port > 0, `listening on ${server.port}`)
  t.equal(server.url, `http://127.0.0.1:${server.port}`)
  t.match(server.apiKey, /^tu_/, 'the first start\'s key is returned')
  t.match(server.adminToken, /^adm_/, 'and the generated admin token')
  t.equal(fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim(), server.adminToken, 'kept in DATA_DIR/admin-token')
  t.equal(fs.statSync(path.join(dataDir, 'admin-token')).mode & 0o777, 0o600, 'mode 0600')
  t.same((await call(server.url, 'GET', '/healthz')).body, { status: 'ok', version }, 'with the package version')
  const created = await call(server.url, 'POST', '/v2/accounts', { key: server.apiKey, body: { name: 'assets:bank' } })
  t.equal(created.status, 201)
  await server.stop()
  await t.rejects(fetch(`${server.url}/healthz`), 'stopped: nothing listens')

  const again = await createServer({ dataDir, port: 0, logLevel: 'silent' })
  t.teardown(() => again.stop())
  t.equal(again.apiKey, undefined, 'no new key on a later start')
  t.equal(again.adminToken, server.adminToken, 'the same admin token')
  t.same((await call(again.url, 'GET', `/v2/accounts/${created.body.id}`, { key: server.apiKey })).body, created.body, 'the account is still there')
})

t.test('createServer takes the configuration in code', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-embedded-'))
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))
  const server = await createServer({ dataDir, port: 0, logLevel: 'silent', adminToken: 'my-admin-token', metricsToken: 'my-metrics-token' })
  t.teardown(() => server.stop())
  t.equal(server.adminToken, 'my-admin-token')
  t.notOk(fs.existsSync(path.join(dataDir, 'admin-token')), 'a given admin token is not written to disk')
  t.equal((await call(server.url, 'GET', '/metrics')).status, 401, 'the metrics token applies')
  t.equal((await call(server.url, 'GET', '/metrics', { key: 'my-metrics-token' })).status, 200)
  await t.rejects(createServer({ dataDir: path.join(dataDir, 'other'), port: 70000 }), /PORT must be 0..65535/, 'the same checks as the environment')
})

t.test('one owner per data dir and per port, in-process too: a second server or Ledger is refused and changes nothing', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-embedded-'))
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))
  const server = await createServer({ dataDir, port: 0, logLevel: 'silent' })
  const inUse = `refusing to start: DATA_DIR ${dataDir} is in use by process ${process.pid}`
  await t.rejects(createServer({ dataDir, port: 0, logLevel: 'silent' }), { name: 'StartRefused', message: inUse }, 'a second server on the data dir')
  t.ok(await createServer({ dataDir, port: 0 }).catch((error: unknown) => error) instanceof StartRefused, 'an instance of the exported StartRefused')
  await t.rejects(Ledger.open({ dataDir }), { name: 'StartRefused', message: inUse }, 'a Ledger on it')
  const otherDir = path.join(dataDir, 'other')
  await t.rejects(createServer({ dataDir: otherDir, port: server.port, logLevel: 'silent' }), { name: 'StartRefused', message: `cannot listen on 127.0.0.1:${server.port}: address in use` }, 'a second server on the port')
  t.notOk(fs.existsSync(otherDir), 'the refused server created no data dir')
  t.equal((await call(server.url, 'GET', '/healthz')).status, 200, 'the first still serves')
  await server.stop()

  const ledger = await Ledger.open({ dataDir })
  await t.rejects(createServer({ dataDir, port: 0, logLevel: 'silent' }), { name: 'StartRefused', message: inUse }, 'a server on a data dir a Ledger holds')
  await ledger.close()
  const again = await createServer({ dataDir, port: 0, logLevel: 'silent' })
  t.equal(again.apiKey, undefined, 'released by stop and close: the data dir opens again')
  await again.stop()
})

t.test('createServer with several shards and a clock: the clock stamps the writes (the main thread serves)', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-embedded-'))
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))
  const nowMs = Date.UTC(2021, 2, 4, 5, 6, 7)
  const server = await createServer({ dataDir, port: 0, logLevel: 'silent', shards: 2, clock: () => nowMs })
  t.teardown(() => server.stop())
  const created = await call(server.url, 'POST', '/admin/workspaces', { key: server.adminToken, body: { id: 'acme', timezone: 'UTC', currency: 'EUR' } })
  t.equal(created.status, 201)
  t.equal(created.body.created_at, new Date(nowMs).toISOString(), 'stamped with the given clock, not the system\'s')
})
