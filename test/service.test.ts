/**
 * The service's assembly (src/service.ts), started directly: the first start makes workspace `default`, its key
 * and a new admin token (kept in DATA_DIR/admin-token, mode 0600), each printed once; a restart prints none and
 * keeps the token; ADMIN_TOKEN given is never written; a refused start (the address taken, the data dir in use)
 * writes nothing and leaves the running service alone; stop prints its last line and frees the data dir.
 */
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { loadConfig } from '../src/config.ts'
import { startService, type Service } from '../src/service.ts'
import { StartRefused } from '../src/start-refused.ts'

t.setTimeout(120_000)

function tempDir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-service-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

async function start(env: Record<string, string>): Promise<{ service: Service; printed: string[] }> {
  const printed: string[] = []
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', ...env })
  const service = await startService(config, { print: (line) => printed.push(line), clock: () => Date.now(), onLogFailure: (error) => { throw error }, warn: () => undefined })
  return { service, printed }
}

async function accountsStatus(service: Service, key: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${service.port}/v2/accounts`, { headers: { authorization: `Bearer ${key}` } })
  await response.arrayBuffer()
  return response.status
}

t.test('first start: workspace, key and admin token made and printed once; a restart makes none', async (t) => {
  const dataDir = tempDir(t)
  const first = await start({ DATA_DIR: dataDir })
  const tokenFile = path.join(dataDir, 'admin-token')
  t.equal(fs.readFileSync(tokenFile, 'utf8'), `${first.service.adminToken}\n`)
  t.equal(fs.statSync(tokenFile).mode & 0o777, 0o600, 'readable by its owner only')
  t.match(first.service.adminToken, /^adm_[A-Za-z0-9_-]{43}$/)
  const key = first.service.firstApiKey
  t.type(key, 'string')
  t.same(first.printed, [
    `Admin token (written to ${tokenFile}, shown once): ${first.service.adminToken}`,
    'First start: created workspace "default" (timezone UTC) and an API key with every scope.',
    `API key (shown once): ${key}`,
  ])
  t.same([...first.service.runtime.system.workspaces.keys()], ['default'])
  t.equal(await accountsStatus(first.service, key!), 200, 'the key works')
  t.equal(await accountsStatus(first.service, 'nope'), 401)
  await first.service.stop()
  t.match(first.printed.at(-1), /^trueup stopped: 0 requests in flight answered, 0 refused with 503, \d+ idle connections closed; \d+ log records flushed, last durable seq \d+, \d+ snapshots written\.$/)

  const second = await start({ DATA_DIR: dataDir })
  t.equal(second.service.adminToken, first.service.adminToken, 'the kept token')
  t.equal(second.service.firstApiKey, null)
  t.same(second.printed, [], 'nothing made, nothing printed')
  t.equal(await accountsStatus(second.service, key!), 200, 'the first key still works')
  await second.service.stop()
})

t.test('ADMIN_TOKEN given: used, never written', async (t) => {
  const dataDir = tempDir(t)
  const { service, printed } = await start({ DATA_DIR: dataDir, ADMIN_TOKEN: 'given-admin-token-0123456789' })
  t.equal(service.adminToken, 'given-admin-token-0123456789')
  t.notOk(fs.existsSync(path.join(dataDir, 'admin-token')))
  t.notOk(printed.some((line) => line.includes('Admin token')))
  await service.stop()
})

t.test('a refused start writes nothing and leaves the running service alone', async (t) => {
  const blocker = net.createServer()
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  t.teardown(() => blocker.close())
  const taken = (blocker.address() as net.AddressInfo).port
  const missing = path.join(tempDir(t), 'not-yet')
  await t.rejects(start({ DATA_DIR: missing, PORT: String(taken) }), StartRefused)
  t.notOk(fs.existsSync(missing), 'the address taken: the data dir is not even created')

  const dataDir = tempDir(t)
  const running = await start({ DATA_DIR: dataDir })
  const listing = fs.readdirSync(dataDir).sort()
  await t.rejects(start({ DATA_DIR: dataDir }), { message: /is in use by process/ })
  t.same(fs.readdirSync(dataDir).sort(), listing, 'nothing written by the refused start')
  t.equal(await accountsStatus(running.service, running.service.firstApiKey!), 200, 'the running one still serves')
  await running.service.stop()
  const again = await start({ DATA_DIR: dataDir })
  t.pass('stop released the data dir')
  await again.service.stop()
})
