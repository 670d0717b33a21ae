/**
 * One shard on a worker thread (src/shard/shard-worker.ts), driven over its port as the main thread drives it
 * (worker-shard.ts), without an edge of its own: it says ready with what it replayed, executes operations and
 * posts their replies, answers holds and stats, refuses what only a thread with an edge has, closes with its
 * durable seq; a data dir it cannot open is answered with an error message before the thread ends.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import t, { type Test } from 'tap'
import { resolveConfig, type Config } from '../../src/config.ts'
import { newSealKeyFields } from '../../src/exports/seal-signature.ts'
import { limitsDefault } from '../../src/ledger/system.ts'
import type { FromShard, ToShard } from '../../src/shard/worker-messages.ts'

t.setTimeout(60_000)
const atMs = Date.parse('2026-11-27T12:00:00.000Z')
const source = new URL('../../src/shard/shard-worker.ts', import.meta.url).href

/** A worker and what it posted, message by message (it posts batches). */
class Driven {
  readonly worker: Worker
  readonly heard: FromShard[] = []
  readonly #waiters: (() => void)[] = []

  constructor(config: Config) {
    this.worker = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}) })`, { eval: true, workerData: { config, index: 1, edge: null } })
    this.worker.on('message', (batch: FromShard[]) => {
      this.heard.push(...batch)
      for (const wake of this.#waiters.splice(0)) wake()
    })
  }

  send(...messages: ToShard[]): void {
    this.worker.postMessage(messages)
  }

  /** The first message heard that `match` picks, waited for (bounded by the test's timeout). */
  async next<K extends FromShard['kind']>(kind: K, match: (message: Extract<FromShard, { kind: K }>) => boolean = () => true): Promise<Extract<FromShard, { kind: K }>> {
    for (;;) {
      const found = this.heard.find((message) => message.kind === kind && match(message as Extract<FromShard, { kind: K }>))
      if (found !== undefined) return found as Extract<FromShard, { kind: K }>
      await new Promise<void>((resolve) => this.#waiters.push(resolve))
    }
  }
}

function dataDirOf(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-shard-worker-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

t.test('ready, operations replied to, holds, stats, close with the durable seq; replayed on the next start', async (t) => {
  const config = resolveConfig({ dataDir: dataDirOf(t) })
  const driven = new Driven(config)
  const ready = await driven.next('ready')
  t.same([ready.workspaces, ready.replay.records], [[], 0])
  driven.send({ kind: 'holds', id: 1, workspace: 'ws_a', waitMs: 30 })
  t.equal((await driven.next('answered', (m) => m.id === 1)).value, false, 'no such workspace: not held, after waitMs')
  const create = { type: 'workspace.create', at_ms: atMs, id: 'ws_a', time_zone: 'UTC', limits: limitsDefault, tag: 'abcdef', ...newSealKeyFields() } as const
  driven.send({ kind: 'operation', id: 7, operation: { op: 'system.command', command: create } })
  t.equal((await driven.next('reply', (m) => m.id === 7)).reply.status, 201)
  driven.send({ kind: 'holds', id: 2, workspace: 'ws_a', waitMs: 1000 })
  t.equal((await driven.next('answered', (m) => m.id === 2)).value, true)
  const account = { type: 'account.create', name: 'assets:bank', tags: [], at_ms: atMs, key_id: 'key_a', visibility: null } as const
  driven.send(
    { kind: 'operation', id: 8, operation: { op: 'command', workspace: 'ws_a', command: account, keyed: false } },
    { kind: 'operation', id: 9, operation: { op: 'command', workspace: 'ws_a', command: account, keyed: false } },
  )
  t.equal((await driven.next('reply', (m) => m.id === 8)).reply.status, 201)
  t.equal((await driven.next('reply', (m) => m.id === 9)).reply.status, 409, 'the same name again: in order, the second refused')
  driven.send({ kind: 'stats' })
  const stats = await driven.next('stats')
  t.ok(Array.isArray(stats.stats.queueDepths), 'stats posted as plain data')
  driven.send({ kind: 'close' })
  const closed = await driven.next('closed')
  t.equal(closed.durableSeq, 2, 'the workspace and the account')
  await new Promise((resolve) => driven.worker.once('exit', resolve))
  const again = new Driven(config)
  const replayed = await again.next('ready')
  t.same(replayed.workspaces, ['ws_a'], 'the next start holds it')
  again.send({ kind: 'close' })
  t.equal((await again.next('closed')).durableSeq, 2)
  await new Promise((resolve) => again.worker.once('exit', resolve))
})

t.test('a thread without an edge refuses what only an edge has', async (t) => {
  const driven = new Driven(resolveConfig({ dataDir: dataDirOf(t) }))
  await driven.next('ready')
  const error = new Promise<Error>((resolve) => driven.worker.once('error', resolve))
  driven.send({ kind: 'copy', id: 1 })
  t.match((await error).message, 'shard 1: this thread has no edge (EDGE_THREADS=0)')
  await new Promise((resolve) => driven.worker.once('exit', resolve))
})

t.test('a data dir that cannot be opened: an error message, then the thread ends', async (t) => {
  const dir = dataDirOf(t)
  fs.writeFileSync(path.join(dir, 'log'), 'not a directory')
  const driven = new Driven(resolveConfig({ dataDir: dir }))
  const exited = new Promise<number>((resolve) => driven.worker.once('exit', resolve))
  driven.worker.on('error', () => undefined)
  const error = await driven.next('error')
  t.type(error.message, 'string')
  t.ok(error.message.length > 0, error.message)
  t.notOk(driven.heard.some((message) => message.kind === 'ready'), 'never ready')
  t.equal(await exited, 1)
})
