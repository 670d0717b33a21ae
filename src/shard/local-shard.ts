/**
 * @module The in-process shard: operations executed against this process's runtime (its actors, its log),
 * each answered as a Reply once the log is durable up to what it rests on. The Idempotency-Key of a command
 * is looked up and its answer stored in the one actor turn that applies it.
 */

import type { Submitted } from '../actor/completion.js'
import type { Runtime } from '../actor/runtime.js'
import { ShardNotOwned } from '../cluster/shard-replica.js'
import type { WorkspaceActor } from '../actor/workspace-actor.js'
import { errorBody, reject, statusOf, type Rejection } from '../errors.js'
import type { WorkspaceCommand } from '../ledger/commands.js'
import { storedAnswer } from '../ledger/idempotency.js'
import { answerText, accept, type Outcome } from '../ledger/outcome.js'
import { packPage } from '../ledger/pack-pages.js'
import { invalidCursor } from '../ledger/pages.js'
import { executeQuery, executeSlicedQuery, isSlicedQuery } from '../ledger/queries.js'
import type { SystemCommand, SystemState } from '../ledger/system.js'
import { executeSystemQuery } from '../ledger/system-pages.js'
import { findWebhook } from '../ledger/webhooks.js'
import { isSlicedCommand } from '../ledger/workspace.js'
import { LiveWatches } from './live-watch.js'
import { nothingStored, type Headers, type Operation, type Reply, type Shard, type ShardStats, type UpdateListener } from './operation.js'
import { subscribed, unsubscribed } from './topics.js'

type Done = (reply: Reply) => void
type WorkspaceOperation = Exclude<Operation, { op: 'system.command' | 'system.query' | 'system.refuse' }>

const replayedHeaders = [['Replayed', 'true']] as const
const noHeaders = [] as const
/** A shard not held (cluster mode): a takeover settles within a lease or two (src/cluster/shard-replica.ts). */
const retryAfterHeaders = [['Retry-After', '1']] as const

/** An outcome as it leaves: an error envelope, or the accepted answer's JSON text (empty for 204). */
export function replyOf(outcome: Outcome): Reply {
  if (!outcome.ok) return { status: statusOf(outcome.code), headers: noHeaders, body: errorBody(outcome) }
  // A request carried out before (a stored answer for its Idempotency-Key, a statement imported again): its result, marked as a replay.
  // A posting into a closed period that is not locked answers its warning (docs/API.md, Period locks).
  const headers: Headers = outcome.replayed === true ? replayedHeaders : outcome.warning === undefined ? noHeaders : [['Trueup-Warning', outcome.warning]]
  const reply: Reply = { status: outcome.status, headers, body: outcome.status === 204 ? '' : answerText(outcome) }
  return outcome.keyReplayed === true ? { ...reply, keyReplayed: true } : reply
}

function rejected(rejection: Rejection): Reply {
  return { status: statusOf(rejection.code), headers: noHeaders, body: errorBody(rejection) }
}

export class LocalShard implements Shard {
  readonly #runtime: Runtime
  readonly #onLogFailure: (error: Error) => void
  readonly #updates: UpdateListener[] = []
  readonly #watches: LiveWatches

  constructor(runtime: Runtime, onLogFailure: (error: Error) => void) {
    this.#runtime = runtime
    this.#onLogFailure = onLogFailure
    // An update leaves as a microtask, queued behind the replies released before it (each a promise's
    // reaction): a subscription's answer is handled before the first update after its values.
    this.#watches = new LiveWatches(runtime, (topic, text) => queueMicrotask(() => {
      for (const listener of this.#updates) listener(topic, text)
    }))
  }

  get system(): SystemState {
    return this.#runtime.system
  }

  onUpdate(listener: UpdateListener): void {
    this.#updates.push(listener)
  }

  onSystemCommand(listener: (command: SystemCommand) => void): void {
    this.#runtime.systemObservers.add(listener)
  }

  async stats(): Promise<ShardStats> {
    return this.statsNow()
  }

  /** The stats, read in this turn. */
  statsNow(): ShardStats {
    const runtime = this.#runtime
    const durableSeq = runtime.durableSeq
    const queueDepths = new Map<string, number>()
    for (const actor of runtime.actors.values()) queueDepths.set(actor.id, Math.max(0, actor.lastAppliedSeq - durableSeq))
    return { pendingRecords: runtime.pendingRecords, queueDepths, outboxItems: runtime.outboxItems(), durableSeq }
  }

  send(operation: Operation): Promise<Reply> {
    return new Promise((resolve) => this.#execute(operation, resolve))
  }

  execute(operation: Operation): Reply | Promise<Reply> {
    // A Promise only for an answer that waits (for the log, a sliced read, a busy workspace): most reads and every
    // lookup of an Idempotency-Key are answered in this turn, and a Promise and its reaction per request cost.
    const answered: { now: Reply | null; later: ((reply: Reply) => void) | null } = { now: null, later: null }
    this.#execute(operation, (reply) => {
      if (answered.later === null) answered.now = reply
      else answered.later(reply)
    })
    if (answered.now !== null) return answered.now
    return new Promise((resolve) => { answered.later = resolve })
  }

  #execute(operation: Operation, done: Done): void {
    const runtime = this.#runtime
    switch (operation.op) {
      case 'system.command': {
        const submitted = runtime.submitSystem(operation.command)
        return this.#settle(operation.extra === undefined ? submitted : submitted.withFields(operation.extra), done)
      }
      case 'system.query': return this.#settle(runtime.answerSystem(executeSystemQuery(runtime.system, operation.query)), done)
      case 'system.refuse': return this.#settle(runtime.answerSystem(operation.rejection), done)
      default: {
        const actor = runtime.actors.get(operation.workspace)
        if (actor === undefined) return done(rejected(reject('not_found', `No workspace ${operation.workspace}.`)))
        // A statement import is running in slices: its workspace's other requests wait for it (workspace-actor.ts).
        if (actor.busy && !(operation.op === 'command' && isSlicedCommand(operation.command))) return actor.whenIdle(() => this.#workspace(actor, operation, done))
        return this.#workspace(actor, operation, done)
      }
    }
  }

  #workspace(actor: WorkspaceActor, operation: WorkspaceOperation, done: Done): void {
    switch (operation.op) {
      case 'command': return this.#command(actor, operation.command, operation.keyed, done)
      case 'query': {
        const { query, visibility } = operation
        if (isSlicedQuery(query)) return actor.querySliced((state) => executeSlicedQuery(state, query, visibility), (completion) => this.#settle(completion, done))
        return this.#settle(actor.query((state) => executeQuery(state, query, visibility)), done)
      }
      case 'refuse': return this.#settle(actor.answer(operation.rejection), done)
      case 'idempotency': return this.#idempotency(actor, operation, done)
      case 'deliveries': return this.#settle(actor.query((state) => {
        if (findWebhook(state, operation.webhook) === undefined) return reject('not_found', 'No such webhook subscription.')
        const page = actor.deliveries(operation.webhook, operation.limit, operation.cursor)
        return page === null ? invalidCursor() : accept(200, page)
      }), done)
      case 'pack': return this.#settle(actor.query((state) => packPage(state, operation.window, operation.visibility, operation.position, operation.itemsMax, operation.atMs)), done)
      case 'subscribe': return this.#settle(actor.query((state) => {
        const outcome = subscribed(state, operation.windows, operation.accounts, operation.visibility, operation.atMs)
        if (outcome.ok) for (const [topic] of (outcome.body as { initial: [string, string][] }).initial) this.#watches.watch(actor.id, topic)
        return outcome
      }), done)
      case 'unsubscribe': return this.#settle(actor.query((state) => unsubscribed(state, operation.accounts, operation.visibility)), done)
      case 'unwatch': {
        for (const topic of operation.topics) this.#watches.unwatch(actor.id, topic)
        return done({ status: 204, headers: noHeaders, body: '' })
      }
    }
  }

  /** A command, its Idempotency-Key looked up in the very step that applies it (a replay or a conflict instead); a statement import in slices. */
  #command(actor: WorkspaceActor, command: WorkspaceCommand, keyed: boolean, done: Done): void {
    if (isSlicedCommand(command)) return actor.submitInSlices(command, keyed, (completion) => this.#settle(completion, done))
    this.#settle(actor.submit(command, keyed), done)
  }

  #idempotency(actor: WorkspaceActor, operation: Extract<Operation, { op: 'idempotency' }>, done: Done): void {
    const found = actor.idempotency(operation.key, operation.keyId, operation.visibility, operation.atMs)
    const record = found.record
    if (record === undefined) return done({ status: nothingStored, headers: noHeaders, body: '' })
    if (operation.fingerprint === null) return done({ status: 200, headers: noHeaders, body: '' })
    if (record.fingerprint !== operation.fingerprint) return done(rejected(reject('idempotency_conflict')))
    this.#settle(actor.answer(storedAnswer(record)), done)
  }

  /** Nothing leaves before the log is durable up to what the answer rests on. */
  #settle(completion: Submitted, done: Done): void {
    completion.whenDurable((error) => {
      if (error !== null) return this.#failed(error, done)
      done(replyOf(completion.outcome))
    })
  }

  #failed(error: Error, done: Done): void {
    // Cluster mode: the shard is another node's now (or not this node's at all); nothing was written, the process
    // carries on with its other shards, and the client retries (docs/API.md, "Cluster mode").
    if (error instanceof ShardNotOwned) return done({ ...rejected(reject('unavailable', 'This node does not hold the shard of this request now; retry shortly.')), headers: retryAfterHeaders })
    done(rejected(reject('unavailable', 'The log could not be written; the service is restarting.')))
    this.#onLogFailure(error)
  }
}
