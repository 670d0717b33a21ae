/**
 * @module The main thread's handle on one shard running on a worker thread (shard-worker.ts): operations
 * forwarded over the thread's port, replies matched back by id, live updates and log failures heard.
 */

import type { Worker } from 'node:worker_threads'
import type { ReplayReport } from '../actor/runtime.js'
import type { ReplicaRoute } from '../cluster/shard-replica.js'
import type { Config } from '../config.js'
import { errorBody, reject, statusOf } from '../errors.js'
import type { SystemCommand, SystemState } from '../ledger/system.js'
import type { LocalNodeHooks } from './local-node.js'
import type { Operation, Reply, ShardStats, UpdateListener } from './operation.js'
import { PortBatch } from './port-batch.js'
import type { Probe } from './probe.js'
import type { EdgeHops } from './thread-shard.js'
import type { AppDescriptor } from '../edge/child-apps.js'
import type { DrainReport } from '../edge/drain.js'
import type { MetricJson } from '../edge/metrics-sum.js'
import type { EdgeCounts } from '../edge/stream.js'
import type { RateSlotAssigned } from './rate-slots.js'
import type { EdgeState, FromShard, ToShard } from './worker-messages.js'
import { siblingModuleUrl, startWorkerThread } from '../worker-thread.js'

/** A shard no node serves now (a takeover under way), or one this node has not heard its thread's replica about yet. */
const notServedYet: ReplicaRoute = { kind: 'unavailable', reason: 'The shard of this request is being taken over by another node; retry shortly.' }

/** What waits on a shard whose thread ended, and every later send, answers (the failure is reported as a failed log is). */
const threadEnded = reject('unavailable', 'The shard of this request stopped; the service is restarting.')
const threadEndedReply: Reply = { status: statusOf(threadEnded.code), headers: [], body: errorBody(threadEnded) }

export type WorkerShardHooks = Pick<LocalNodeHooks, 'onLogFailure' | 'onCommit' | 'onWebhookAttempt' | 'onWebhookGiveUp'> & { readonly warn: (line: string) => void }

export class WorkerShard {
  readonly index: number
  readonly #worker: Worker
  readonly #toShard: PortBatch<ToShard>
  /** Messages heard and not yet handled: the rest of a batch waits behind an update (see #drain). */
  #heardQueue: FromShard[] = []
  #draining = false
  readonly #hooks: WorkerShardHooks
  readonly #pending = new Map<number, (reply: Reply) => void>()
  readonly #updates: UpdateListener[] = []
  readonly #probes = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
  /** Registry commands posted and not yet applied by the thread, and copies asked for (by id). */
  readonly #applying = new Map<number, () => void>()
  readonly #copies = new Map<number, (system: SystemState) => void>()
  readonly #edged = new Map<number, (edged: { reply: Reply; hops: EdgeHops }) => void>()
  /** How a scrape on the thread's edge is answered (threaded-server.ts); null: a scrape answers 503. */
  #scrape: (() => Promise<string>) | null = null
  /** Where an operation the thread's edge forwards goes (the ShardSet: its owner, or the registry). */
  #forward: ((operation: Operation) => Promise<Reply>) | null = null
  #nextId = 1
  #shedListener: ((thread: number, keyId: string | null, hops: number) => void) | null = null
  /** edgeStart, edgeClose and edgeHops asked, waiting for their `answered` (by id). */
  readonly #asked = new Map<number, (value: unknown) => void>()
  #statsWaiting: ((stats: ShardStats) => void)[] = []
  /** Cluster mode: where a request for the shard goes, as the thread's replica last posted (see route). */
  #route: ReplicaRoute
  readonly #served: (() => void)[] = []
  #closed: { readonly resolve: (closed: { snapshotsWrittenCount: number; durableSeq: number }) => void; readonly reject: (error: Error) => void } | null = null
  /** The thread said it closed: its end is the one asked for. */
  #closedHeard = false
  /** Why the thread ended unasked (an exit, an uncaught error), or null while it runs. */
  #failure: Error | null = null

  private constructor(index: number, worker: Worker, hooks: WorkerShardHooks, rest: readonly FromShard[], cluster: boolean) {
    this.index = index
    // A single node serves every shard; a cluster node knows once the thread posts its replica's route (right after `ready`).
    this.#route = cluster ? notServedYet : { kind: 'local' }
    this.#worker = worker
    this.#hooks = hooks
    this.#toShard = new PortBatch(worker)
    worker.on('message', (batch: readonly FromShard[]) => this.#received(batch))
    worker.on('error', (error) => this.#ended(`its thread failed: ${error.message}`))
    worker.on('exit', (code) => this.#ended(`its thread exited (code ${code})`))
    if (rest.length > 0) this.#received(rest)
  }

  /**
   * The thread ended unasked: the shard is failed, as a failed log is (reported once, through onLogFailure: the
   * service exits so that start-up recovers). Its sends and probes waiting answer 503 or fail, and so do later ones.
   */
  #ended(reason: string): void {
    if (this.#closedHeard || this.#failure !== null) return
    const failure = new Error(`shard ${this.index}: ${reason}`)
    this.#failure = failure
    for (const resolve of this.#pending.values()) resolve(threadEndedReply)
    this.#pending.clear()
    for (const waiting of this.#probes.values()) waiting.reject(failure)
    this.#probes.clear()
    this.#closed?.reject(failure)
    this.#hooks.onLogFailure(failure)
  }

  /** postMessage calls to the shard and the messages they carried; the batches and messages heard back. */
  get hops(): { readonly posts: number; readonly messages: number; readonly batchesHeard: number; readonly messagesHeard: number } {
    return { posts: this.#toShard.posts, messages: this.#toShard.messages, batchesHeard: this.#batchesHeard, messagesHeard: this.#messagesHeard }
  }

  #batchesHeard = 0
  #messagesHeard = 0

  /** Starts the worker on its data dir and resolves once it has replayed its log: its workspaces and its replay. */
  static start(index: number, config: Config, edge: EdgeState | null, hooks: WorkerShardHooks): Promise<{ shard: WorkerShard; workspaces: readonly string[]; replay: ReplayReport }> {
    const worker = startWorkerThread(siblingModuleUrl(import.meta.url, './shard-worker'), { workerData: { config, index, edge } })
    return new Promise((resolve, reject) => {
      // Warnings of the replay may come before `ready`, in the same batch or earlier ones.
      const first = (batch: readonly FromShard[]) => {
        for (const [at, message] of batch.entries()) {
          if (message.kind === 'warn') { hooks.warn(message.line); continue }
          worker.off('message', first)
          worker.off('exit', exited)
          // After an `error` the thread rethrows it (its own uncaught error): still heard here, never by the process.
          if (message.kind !== 'error') worker.off('error', failed)
          if (message.kind === 'ready') return resolve({ shard: new WorkerShard(index, worker, hooks, batch.slice(at + 1), config.cluster !== null), workspaces: message.workspaces, replay: message.replay })
          if (message.kind === 'error') return reject(Object.assign(new Error(message.message), { name: message.name }))
          void worker.terminate()
          return reject(new Error(`shard ${index}: unexpected first message ${message.kind}`))
        }
      }
      const failed = (error: Error) => reject(error)
      const exited = (code: number) => reject(new Error(`shard ${index}: its thread exited at start (code ${code})`))
      worker.on('message', first)
      worker.on('error', failed)
      worker.on('exit', exited)
    })
  }

  send(operation: Operation): Promise<Reply> {
    if (this.#failure !== null) return Promise.resolve(threadEndedReply)
    const id = this.#nextId++
    return new Promise((resolve) => {
      this.#pending.set(id, resolve)
      this.#post({ kind: 'operation', id, operation })
    })
  }

  /**
   * Cluster mode: whether a request for this shard is served here, forwarded to its owner's URL, or answered 503 (a
   * takeover); one another node already forwarded is never forwarded again.
   */
  route(forwarded: boolean): ReplicaRoute {
    const route = this.#route
    return route.kind === 'forward' && forwarded ? notServedYet : route
  }

  /** Cluster mode: called each time this node starts serving the shard (at start, or after a takeover). */
  onServed(listener: () => void): void {
    this.#served.push(listener)
  }

  /** Cluster mode: whether the shard holds the workspace, waited for up to waitMs (a standby follows its creation by the owner). */
  holds(workspace: string, waitMs: number): Promise<boolean> {
    return this.#ask((id) => ({ kind: 'holds', id, workspace, waitMs })) as Promise<boolean>
  }

  /** A test seam (probe.ts) run on the shard's thread against its runtime. */
  probe(probe: Probe): Promise<unknown> {
    if (this.#failure !== null) return Promise.reject(this.#failure)
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      this.#probes.set(id, { resolve, reject })
      this.#post({ kind: 'probe', id, probe })
    })
  }

  /**
   * A system command the registry accepted, applied to the thread's registry copy (a new workspace with its rate slot,
   * a new key with its send-buffer slot): resolves once it is.
   */
  applyRegistry(command: SystemCommand, rate: RateSlotAssigned | null, keySlot: RateSlotAssigned | null): Promise<void> {
    const id = this.#nextId++
    return new Promise((resolve) => {
      this.#applying.set(id, resolve)
      this.#post({ kind: 'registry', id, command, rate, keySlot })
    })
  }

  /** The thread's edge's operations for other shards and the registry are sent on there. */
  forwardTo(forward: (operation: Operation) => Promise<Reply>): void {
    this.#forward = forward
  }

  /** A test seam: an operation sent as the thread's edge sends it (thread-shard.ts), its reply and the edge's hops so far. */
  edgeSend(operation: Operation): Promise<{ reply: Reply; hops: EdgeHops }> {
    const id = this.#nextId++
    return new Promise((resolve) => {
      this.#edged.set(id, resolve)
      this.#post({ kind: 'edge', id, operation })
    })
  }

  /** A test seam: the thread's registry copy as it is now (a structured clone of it). */
  registryCopy(): Promise<SystemState> {
    const id = this.#nextId++
    return new Promise((resolve) => {
      this.#copies.set(id, resolve)
      this.#post({ kind: 'copy', id })
    })
  }

  /** EDGE_THREADS=1: the thread builds its edge (edge/thread-edge.ts); its app's descriptor, for the listening app. */
  startEdge(adminToken: string, clockCell: Float64Array | null): Promise<AppDescriptor> {
    return this.#ask((id) => ({ kind: 'edgeStart', id, adminToken, clockCell })) as Promise<AppDescriptor>
  }

  /** The thread's edge drained and its app closed (null: it had none). Its app is removed from the listening one first. */
  closeEdge(graceMs: number): Promise<DrainReport | null> {
    return this.#ask((id) => ({ kind: 'edgeClose', id, graceMs })) as Promise<DrainReport | null>
  }

  /** A test seam: the thread's edge's operations so far, executed there or forwarded here (thread-shard.ts). */
  edgeHops(): Promise<EdgeHops> {
    return this.#ask((id) => ({ kind: 'edgeHops', id })) as Promise<EdgeHops>
  }

  /** EDGE_THREADS=1: the metrics of the thread's edge, in prom-client's JSON form (metrics-sum.ts adds them up). */
  edgeMetrics(): Promise<MetricJson[]> {
    return this.#ask((id) => ({ kind: 'edgeMetrics', id })) as Promise<MetricJson[]>
  }

  /** EDGE_THREADS=1: how a scrape of /metrics on the thread's edge is answered (every thread's metrics as one text). */
  answerScrapes(render: () => Promise<string>): void {
    this.#scrape = render
  }

  /** EDGE_THREADS=1: another shard's update, for the sessions of this thread's edge. */
  relayUpdate(topic: string, text: string): void {
    this.#post({ kind: 'update', topic, text })
  }

  /** A test seam: the WebSocket sessions and send-buffer counts of the thread's edge. */
  edgeCounts(): Promise<EdgeCounts> {
    return this.#ask((id) => ({ kind: 'edgeCounts', id })) as Promise<EdgeCounts>
  }

  /** EDGE_THREADS=1: the thread's edge rings another thread to shed over a send-buffer bound (edge/shared-send-buffers.ts). */
  onShed(listener: (thread: number, keyId: string | null, hops: number) => void): void {
    this.#shedListener = listener
  }

  /** Another thread's ring, for this thread's edge. */
  relayShed(keyId: string | null, hops: number): void {
    this.#post({ kind: 'shed', keyId, hops })
  }

  #ask(message: (id: number) => ToShard): Promise<unknown> {
    const id = this.#nextId++
    return new Promise((resolve) => {
      this.#asked.set(id, resolve)
      this.#post(message(id))
    })
  }

  onUpdate(listener: UpdateListener): void {
    this.#updates.push(listener)
  }

  /** The stats as the shard has them now (asked for over the port). */
  stats(): Promise<ShardStats> {
    return new Promise((resolve) => {
      this.#statsWaiting.push(resolve)
      this.#post({ kind: 'stats' })
    })
  }

  start(): void {
    this.#post({ kind: 'start' })
  }

  /** Its log flushed, snapshots written and closed; then the thread ends. Fails if the thread ended unasked. */
  close(): Promise<{ snapshotsWrittenCount: number; durableSeq: number }> {
    if (this.#failure !== null) return Promise.reject(this.#failure)
    return new Promise((resolve, reject) => {
      this.#closed = { resolve, reject }
      this.#post({ kind: 'close' })
      this.#toShard.flush()
    })
  }

  #post(message: ToShard): void {
    this.#toShard.post(message)
  }

  #scraped(id: number): void {
    const scrape = this.#scrape
    if (scrape === null) return this.#post({ kind: 'scraped', id, text: null })
    scrape().then((text) => this.#post({ kind: 'scraped', id, text }), (error: unknown) => {
      this.#hooks.warn(`trueup: metrics of the shards' threads could not be added up: ${error instanceof Error ? error.message : String(error)}`)
      this.#post({ kind: 'scraped', id, text: null })
    })
  }

  #received(batch: readonly FromShard[]): void {
    this.#batchesHeard++
    this.#messagesHeard += batch.length
    for (const message of batch) this.#heardQueue.push(message)
    if (!this.#draining) this.#drain()
  }

  /**
   * The messages heard, in order. Posted one by one, each was its own event and the reactions of a reply ran to
   * their end before the next message; in a batch, an update after a reply waits for a later turn (setImmediate,
   * after every microtask), so a subscription's answer is still handled before the first update after its values.
   */
  #drain(): void {
    this.#draining = true
    const queue = this.#heardQueue
    let replied = false
    for (let at = 0; at < queue.length; at++) {
      const message = queue[at]
      if (replied && message.kind === 'update') {
        this.#heardQueue = queue.slice(at)
        return void setImmediate(() => this.#drain())
      }
      replied ||= message.kind === 'reply' || message.kind === 'stats' || message.kind === 'probed'
      this.#heard(message, this.#hooks)
    }
    this.#heardQueue = []
    this.#draining = false
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
      case 'probed': {
        const waiting = this.#probes.get(message.id)
        this.#probes.delete(message.id)
        return message.error === undefined ? waiting?.resolve(message.value) : waiting?.reject(new Error(`shard ${this.index}: ${message.error}`))
      }
      case 'stats': {
        const stats = { ...message.stats, queueDepths: new Map(message.stats.queueDepths) }
        const waiting = this.#statsWaiting
        this.#statsWaiting = []
        for (const resolve of waiting) resolve(stats)
        return
      }
      case 'applied': {
        const resolve = this.#applying.get(message.id)
        this.#applying.delete(message.id)
        return resolve?.()
      }
      case 'forward': return void this.#forward?.(message.operation).then((reply) => this.#post({ kind: 'forwarded', id: message.id, reply }))
      case 'scrape': return this.#scraped(message.id)
      case 'shed': return this.#shedListener?.(message.thread, message.keyId, message.hops)
      case 'edged': {
        const resolve = this.#edged.get(message.id)
        this.#edged.delete(message.id)
        return resolve?.({ reply: message.reply, hops: message.hops })
      }
      case 'answered': {
        const resolve = this.#asked.get(message.id)
        this.#asked.delete(message.id)
        return resolve?.(message.value)
      }
      case 'copy': {
        const resolve = this.#copies.get(message.id)
        this.#copies.delete(message.id)
        return resolve?.(message.system)
      }
      case 'failed': return hooks.onLogFailure(new Error(`shard ${this.index}: ${message.message}`))
      case 'warn': return hooks.warn(message.line)
      // The service's metrics count every shard's commits and deliveries, as they count the one log's.
      case 'commit': return hooks.onCommit?.(message.records, message.durationMs)
      case 'webhook': return message.result === 'gave-up' ? hooks.onWebhookGiveUp?.() : hooks.onWebhookAttempt?.(message.result)
      case 'closed': {
        const { snapshotsWrittenCount, durableSeq } = message
        this.#closedHeard = true
        void this.#worker.terminate().then(() => this.#closed?.resolve({ snapshotsWrittenCount, durableSeq }))
        return
      }
      case 'route': {
        const wasLocal = this.#route.kind === 'local'
        this.#route = message.route
        if (!wasLocal && message.route.kind === 'local') for (const listener of this.#served) listener()
        return
      }
      case 'ready':
      case 'error': return
    }
  }
}
