/**
 * @module The main thread's handle on one shard running on a worker thread (shard-worker.ts): operations
 * forwarded over the thread's port, replies matched back by id, live updates and log failures heard.
 */

import { Worker } from 'node:worker_threads'
import type { ReplayReport } from '../actor/runtime.js'
import type { Config } from '../config.js'
import type { LocalNodeHooks } from './local-node.js'
import type { Operation, Reply, ShardStats, UpdateListener } from './operation.js'
import type { FromShard, ToShard } from './worker-messages.js'

export type WorkerShardHooks = Pick<LocalNodeHooks, 'onLogFailure' | 'onCommit' | 'onWebhookAttempt' | 'onWebhookGiveUp'> & { readonly warn: (line: string) => void }

function startWorker(config: Config): Worker {
  const workerData = { config }
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./shard-worker.js', import.meta.url), { workerData })
  // Under tsx (tests): the worker registers it before loading the TypeScript source.
  const source = new URL('./shard-worker.ts', import.meta.url).href
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}) })`, { eval: true, workerData })
}

export class WorkerShard {
  readonly index: number
  readonly #worker: Worker
  readonly #pending = new Map<number, (reply: Reply) => void>()
  readonly #updates: UpdateListener[] = []
  #nextId = 1
  #stats: ShardStats = { pendingRecords: 0, queueDepths: new Map(), outboxItems: 0, durableSeq: 0 }
  #closed: ((closed: { snapshotsWrittenCount: number; durableSeq: number }) => void) | null = null

  private constructor(index: number, worker: Worker, hooks: WorkerShardHooks) {
    this.index = index
    this.#worker = worker
    worker.on('message', (message: FromShard) => this.#heard(message, hooks))
  }

  /** Starts the worker on its data dir and resolves once it has replayed its log: its workspaces and its replay. */
  static start(index: number, config: Config, hooks: WorkerShardHooks): Promise<{ shard: WorkerShard; workspaces: readonly string[]; replay: ReplayReport }> {
    const worker = startWorker(config)
    return new Promise((resolve, reject) => {
      const first = (message: FromShard) => {
        worker.off('error', failed)
        if (message.kind === 'ready') return resolve({ shard: new WorkerShard(index, worker, hooks), workspaces: message.workspaces, replay: message.replay })
        if (message.kind === 'error') return reject(Object.assign(new Error(message.message), { name: message.name }))
        reject(new Error(`shard ${index}: unexpected first message ${message.kind}`))
      }
      const failed = (error: Error) => reject(error)
      worker.once('message', first)
      worker.once('error', failed)
    })
  }

  send(operation: Operation): Promise<Reply> {
    const id = this.#nextId++
    return new Promise((resolve) => {
      this.#pending.set(id, resolve)
      this.#post({ kind: 'operation', id, operation })
    })
  }

  onUpdate(listener: UpdateListener): void {
    this.#updates.push(listener)
  }

  get stats(): ShardStats {
    return this.#stats
  }

  start(): void {
    this.#post({ kind: 'start' })
  }

  /** Its log flushed, snapshots written and closed; then the thread ends. */
  close(): Promise<{ snapshotsWrittenCount: number; durableSeq: number }> {
    return new Promise((resolve) => {
      this.#closed = resolve
      this.#post({ kind: 'close' })
    })
  }

  #post(message: ToShard): void {
    this.#worker.postMessage(message)
  }

  #heard(message: FromShard, hooks: WorkerShardHooks): void {
    switch (message.kind) {
      case 'reply': {
        const resolve = this.#pending.get(message.id)
        this.#pending.delete(message.id)
        return resolve?.(message.reply)
      }
      // Queued behind the reactions of the replies heard before it (a subscription's answer first: live-watch.ts).
      case 'update': return queueMicrotask(() => { for (const listener of this.#updates) listener(message.topic, message.text) })
      case 'stats': return void (this.#stats = { ...message.stats, queueDepths: new Map(message.stats.queueDepths) })
      case 'failed': return hooks.onLogFailure(new Error(`shard ${this.index}: ${message.message}`))
      case 'warn': return hooks.warn(message.line)
      // The service's metrics count every shard's commits and deliveries, as they count the one log's.
      case 'commit': return hooks.onCommit?.(message.records, message.durationMs)
      case 'webhook': return message.result === 'gave-up' ? hooks.onWebhookGiveUp?.() : hooks.onWebhookAttempt?.(message.result)
      case 'closed': {
        const { snapshotsWrittenCount, durableSeq } = message
        void this.#worker.terminate().then(() => this.#closed?.({ snapshotsWrittenCount, durableSeq }))
        return
      }
      case 'ready':
      case 'error': return
    }
  }
}
