/**
 * One process per data dir and one listener per port (docs/API.md, "Running it"): a second process started on a
 * data dir in use, on a port in use, or on both, exits 2 with its one-line message and touches nothing, while
 * the first keeps answering and every write it acknowledged survives a kill -9 and a restart. Real processes.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { killHard, runToExit, startProcess, type RunningProcess, requestJson as request } from '../support/process.ts'

// Nine process starts: more than the default budget of a file on a busy machine.
t.setTimeout(600_000)

const adminToken = 'single-owner-admin'
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-single-owner-'))
const live: RunningProcess[] = []
t.teardown(async () => {
  for (const running of live) await killHard(running)
  fs.rmSync(tmpRoot, { recursive: true, force: true })
})

/** Every file under dir with its size and modification time: what "touches nothing" compares. */
function filesOf(dir: string): string[] {
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort().map((name) => {
    const stat = fs.statSync(path.join(dir, name))
    return `${name} ${stat.isDirectory() ? 'dir' : stat.size} ${stat.mtimeMs}`
  })
}

/** Posts count entries; returns the ids of those acknowledged (201), failing the test on any other answer. */
async function postEntries(t: Test, running: RunningProcess, count: number, label: string): Promise<string[]> {
  const ids: string[] = []
  for (let index = 0; index < count; index++) {
    const reply = await request(running.baseUrl, running.apiKey!, 'POST', '/v2/entries', {
      lines: [{ account: 'assets:bank', amount: index + 1 }, { account: 'income:sales', amount: -(index + 1) }], description: `${label} ${index}`,
    })
    t.equal(reply.status, 201, `${label} ${index} acknowledged`)
    if (reply.status === 201) ids.push(reply.body.id)
  }
  return ids
}

async function startFirst(t: Test, dataDir: string): Promise<RunningProcess> {
  const first = await startProcess({ dataDir, adminToken })
  live.push(first)
  t.ok(first.apiKey !== null, 'the first start printed its key')
  for (const name of ['assets:bank', 'income:sales']) t.equal((await request(first.baseUrl, first.apiKey!, 'POST', '/v2/accounts', { name })).status, 201)
  return first
}

/** kill -9 the first, start again on its data dir (a stale lock never blocks), and find every acknowledged entry once. */
async function assertSurvives(t: Test, first: RunningProcess, dataDir: string, acknowledged: readonly string[]): Promise<void> {
  await killHard(first)
  const again = await startProcess({ dataDir, adminToken })
  live.push(again)
  t.equal(again.apiKey, null, 'a restart creates no key: the data dir is the first one\'s')
  const listed = await request(again.baseUrl, first.apiKey!, 'GET', '/v2/entries?limit=100')
  t.equal(listed.status, 200)
  const ids = listed.body.data.map((entry: { id: string }) => entry.id).sort()
  t.same(ids, [...acknowledged].sort(), 'every acknowledged entry survived the kill -9, each once')
  await killHard(again)
}

/** After a refused second start: the first still serves and writes, and after a kill -9 every acknowledged entry is there. */
async function assertFirstKeepsEverything(t: Test, first: RunningProcess, dataDir: string, before: readonly string[]): Promise<void> {
  await assertFirstServes(t, first)
  const after = await postEntries(t, first, 5, 'after')
  await assertSurvives(t, first, dataDir, [...before, ...after])
}

/** The first keeps answering: every one of 20 requests reaches it (its key is unknown to any other ledger). */
async function assertFirstServes(t: Test, first: RunningProcess): Promise<void> {
  const statuses = await Promise.all(Array.from({ length: 20 }, () => request(first.baseUrl, first.apiKey!, 'GET', '/v2/accounts').then((reply) => reply.status)))
  t.same(statuses, Array.from({ length: 20 }, () => 200), 'all 20 requests answered by the first')
}

t.test('a second process on a data dir in use exits 2, touches nothing, and the first loses nothing', async (t) => {
  const dataDir = path.join(tmpRoot, 'same-dir')
  const first = await startFirst(t, dataDir)
  const acknowledged = await postEntries(t, first, 5, 'before')
  const before = filesOf(dataDir)
  const second = await runToExit({ dataDir, adminToken, timeoutMs: 20_000 })
  t.equal(second.code, 2, 'exit 2')
  t.equal(second.stderr, `refusing to start: DATA_DIR ${dataDir} is in use by process ${first.child.pid}\n`, 'one line naming the holder')
  t.equal(second.stdout, '', 'nothing printed: no key, no token')
  t.same(filesOf(dataDir), before, 'no file of the data dir written')
  await assertFirstKeepsEverything(t, first, dataDir, acknowledged)
})

t.test('a second process on a port in use exits 2 and creates nothing; the first keeps every request', async (t) => {
  const dataDir = path.join(tmpRoot, 'same-port')
  const first = await startFirst(t, dataDir)
  const acknowledged = await postEntries(t, first, 5, 'before')
  const port = Number(new URL(first.baseUrl).port)
  const otherDir = path.join(tmpRoot, 'same-port-other')
  const second = await runToExit({ dataDir: otherDir, adminToken, port, timeoutMs: 20_000 })
  t.equal(second.code, 2, 'exit 2')
  t.equal(second.stderr, `cannot listen on 127.0.0.1:${port}: address in use\n`, 'one line naming the address')
  t.equal(second.stdout, '', 'nothing printed')
  t.notOk(fs.existsSync(otherDir), 'its data dir was not even created')
  await assertFirstKeepsEverything(t, first, dataDir, acknowledged)
})

t.test('a second process on the same data dir and port: the data dir is named; nothing is touched or lost', async (t) => {
  const dataDir = path.join(tmpRoot, 'both')
  const first = await startFirst(t, dataDir)
  const acknowledged = await postEntries(t, first, 5, 'before')
  const before = filesOf(dataDir)
  const port = Number(new URL(first.baseUrl).port)
  const second = await runToExit({ dataDir, adminToken, port, timeoutMs: 20_000 })
  t.equal(second.code, 2, 'exit 2')
  t.equal(second.stderr, `refusing to start: DATA_DIR ${dataDir} is in use by process ${first.child.pid}\n`)
  t.equal(second.stdout, '')
  t.same(filesOf(dataDir), before, 'no file of the data dir written')
  await assertFirstKeepsEverything(t, first, dataDir, acknowledged)
})
