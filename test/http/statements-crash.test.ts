/** kill -9 right after a statement import's 201 (docs/RELIABILITY.md, 10): the restarted process holds the same windows and lines. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { killHard, startProcess, type RunningProcess } from '../support/process.ts'
import { call } from '../support/service.ts'

const adminToken = 'x'
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-statements-crash-'))
const live: RunningProcess[] = []
t.teardown(async () => {
  for (const running of live) await killHard(running)
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const file = fs.readFileSync(path.resolve(import.meta.dirname, '../fixtures/statements/mt940/bhd-three-statements.sta'))

async function windowsAndLines(baseUrl: string, key: string): Promise<unknown> {
  const windows = (await call(baseUrl, 'GET', '/v2/reconciliations', { key })).body.data
  const lines = await Promise.all(windows.map(async (window: any) => (await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/lines`, { key })).body.data))
  return { windows, lines }
}

t.test('an acknowledged import survives kill -9, and is known after it', async (t) => {
  const first = await startProcess({ dataDir, adminToken })
  live.push(first)
  const key = first.apiKey!
  for (const [name, external] of [['assets:bank:bhd1', 'BH67BMAG00001299123456'], ['assets:bank:bhd2', 'BH29BMAG00001299654321']]) {
    t.equal((await call(first.baseUrl, 'POST', '/v2/accounts', { key, body: { name, currency: 'BHD', external_id: external } })).status, 201)
  }
  const imported = await call(first.baseUrl, 'POST', '/v2/statements', { key, raw: file, headers: { 'content-type': 'application/x-mt940' } })
  t.equal(imported.status, 201)
  t.equal(imported.body.statements, 3)
  const before = await windowsAndLines(first.baseUrl, key)
  await killHard(first)
  const second = await startProcess({ dataDir, adminToken })
  live.push(second)
  t.same(await windowsAndLines(second.baseUrl, key), before, 'the same windows and lines after kill -9 and replay')
  const again = await call(second.baseUrl, 'POST', '/v2/statements', { key, raw: file, headers: { 'content-type': 'application/x-mt940' } })
  t.equal(again.headers.get('replayed'), 'true', 'the same statements again: a replay')
  t.same(again.body, imported.body, 'the stored result')
})
