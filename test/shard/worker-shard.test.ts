/**
 * WorkerShard, the main thread's handle on one shard on a worker thread (src/shard/shard-worker.ts): it starts and
 * says ready with the workspaces its log holds, an operation sent comes back as its reply, and a thread that ends
 * (an exit, an uncaught error) is a failed shard: what waits on it and every later send answer 503, and the
 * failure is reported once, as a failed log is, rather than waiting for ever or taking the process down. A thread
 * that cannot open its log fails the start, and only the start.
 */
import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { loadConfig } from '../../src/config.ts'
import { limitsDefault } from '../../src/ledger/system.ts'
import type { Operation } from '../../src/shard/operation.ts'
import { WorkerShard } from '../../src/shard/worker-shard.ts'

/** A thread loads its modules under tsx first: seconds on a busy machine; each wait here is bounded by this. */
const waitMsMax = 60_000

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer within ${waitMsMax} ms`)), waitMsMax) })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

interface Heard {
  readonly failures: Error[]
  readonly warnings: string[]
}

async function startShard(t: Test, dataDir: string, heard: Heard = { failures: [], warnings: [] }) {
  const config = { ...loadConfig({ DATA_DIR: dataDir, SHARDS: '2', HOST: '127.0.0.1', PORT: '0', ADMIN_TOKEN: 'worker-shard-test-admin-token' }), dataDir }
  const hooks = { onLogFailure: (error: Error) => void heard.failures.push(error), warn: (line: string) => void heard.warnings.push(line) }
  const started = await within(WorkerShard.start(0, config, null, hooks), 'start')
  return { ...started, heard }
}

const create = (id: string): Operation => ({
  op: 'system.command', command: { type: 'workspace.create', at_ms: Date.UTC(2026, 0, 1), id, time_zone: 'UTC', limits: limitsDefault, tag: `tag-${id}` },
})
const listAccounts = (workspace: string): Operation => ({ op: 'query', workspace, visibility: null, query: { name: 'account.list', params: { limit: 10, cursor: null } } })
const probeModule = new URL('../support/thread-end-probes.ts', import.meta.url).href

t.test('ready on an empty data dir; an operation sent comes back as its reply; the log keeps it for the next start', async (t) => {
  const dataDir = t.testdir()
  const first = await startShard(t, dataDir)
  t.same(first.workspaces, [], 'no workspaces yet')
  t.equal(first.replay.records, 0, 'nothing replayed')
  const created = await within(first.shard.send(create('acme')), 'create')
  t.equal(created.status, 201, `created: ${created.body}`)
  const listed = await within(first.shard.send(listAccounts('acme')), 'list')
  t.equal(listed.status, 200)
  t.same(JSON.parse(listed.body).data, [])
  const unknown = await within(first.shard.send(listAccounts('nope')), 'unknown')
  t.equal(unknown.status, 404, 'a workspace the shard does not hold')
  const closed = await within(first.shard.close(), 'close')
  t.ok(closed.durableSeq >= 1, `closed with its log durable to ${closed.durableSeq}`)
  t.same(first.heard.failures, [])

  const second = await startShard(t, dataDir)
  t.same(second.workspaces, ['acme'], 'the workspace is in its log')
  await within(second.shard.close(), 'close')
})

t.test('a thread that cannot open its log fails the start with why, and nothing else', async (t) => {
  const dataDir = path.join(t.testdir(), 'a-file')
  fs.writeFileSync(dataDir, 'not a directory')
  const heard = { failures: [] as Error[], warnings: [] as string[] }
  await t.rejects(startShard(t, dataDir, heard), /cannot open the log/)
  // The thread's own error (it rethrows what it posted) comes after: heard by nobody, it would end this process.
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  t.same(heard.failures, [], 'not reported again as a failure')
})

for (const end of [
  { name: 'exits', probe: 'exitThreadProbe', args: [7], said: /shard 0.*\b7\b/ },
  { name: 'throws outside any handler', probe: 'throwOnThreadProbe', args: ['struck on the thread'], said: /shard 0.*struck on the thread/ },
]) {
  t.test(`a thread that ${end.name}: what waits on it and later sends answer 503, and the failure is reported once`, async (t) => {
    const started = await startShard(t, t.testdir())
    t.equal((await within(started.shard.send(create('acme')), 'create')).status, 201)
    const probed = started.shard.probe({ module: probeModule, name: end.probe, args: end.args })
    await t.rejects(within(probed, 'the probe'), /shard 0/, 'a probe waiting on the thread fails')
    const after = await within(started.shard.send(listAccounts('acme')), 'a send after')
    t.equal(after.status, 503, 'a send after the end answers 503')
    t.equal(JSON.parse(after.body).error.code, 'unavailable')
    t.equal(started.heard.failures.length, 1, 'reported once')
    t.match(started.heard.failures[0]?.message, end.said)
    await t.rejects(started.shard.close(), /shard 0/, 'a close after the end fails at once')
  })
}
