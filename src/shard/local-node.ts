/**
 * @module The one composition root of what holds the workspaces in this process, for the service and the
 * embedded Ledger alike: the data dir's log, the runtime replayed from it, the in-process shard in front of
 * them, and their housekeeping (periodic snapshots, log retention, webhook delivery). The ways in get the
 * shard and nothing else.
 */

import path from 'node:path'
import { LogRetention } from '../actor/log-retention.js'
import { Runtime, type ReplayReport } from '../actor/runtime.js'
import type { Config } from '../config.js'
import { limitsDefault, type SystemCommand } from '../ledger/system.js'
import { ShardNotOwned, ShardReplica, type ReplicaRoute } from '../cluster/shard-replica.js'
import { ensureWebhookDone, publishDone, readDone, type DoneDelivery } from '../cluster/webhook-done.js'
import { decodeRecord } from '../log/codec.js'
import { CommandLog, sideDatabases, type CommitFaults, type SideWrites } from '../log/command-log.js'
import { removeSnapshotsAfter, snapshotSeqsOnDisk } from '../log/snapshot.js'
import { parseOutboxKey } from '../webhooks/outbox.js'
import { newSealKeyFields } from '../exports/seal-signature.js'
import { WebhookDeliverer, type AttemptResult } from '../webhooks/deliverer.js'
import { LocalShard } from './local-shard.js'
import { runProbe, type Probe } from './probe.js'

/** Cluster mode: how often finished webhook deliveries are handed from the owner to the standbys, in ms. */
const handoverIntervalMs = 1_000
/** Pages of finished deliveries a new owner reads before it delivers (10,000 each: webhook-done.ts). */
const handoverPagesMax = 100

/** How often snapshots are checked for (and retention runs): each check writes those due. */
export const snapshotCheckIntervalMs = 5_000

export interface LocalNodeHooks {
  readonly clock: () => number
  /** The log failed: memory is ahead of it; the process must stop and recover from the log. */
  readonly onLogFailure: (error: Error) => void
  /** Start-up, snapshot and retention warnings; default stderr. */
  readonly warn?: (line: string) => void
  /** Each group commit: its records and its fsync time (metrics). */
  readonly onCommit?: (records: number, durationMs: number) => void
  /** Test seams that make the log's commit step fail (test/log/disk-faults.test.ts). */
  readonly logFaults?: CommitFaults
  /** Webhook delivery's outcomes (metrics) and warnings. */
  readonly onWebhookAttempt?: (result: AttemptResult) => void
  readonly onWebhookGiveUp?: () => void
  readonly webhookWarn?: (message: string, error: unknown) => void
  /** The registry of several shards (shard-set.ts): system state only, the workspaces' states are in the shards. */
  readonly registry?: boolean
  /**
   * In cluster mode (config.cluster), this log's shard number in the database (src/cluster/shard-replica.ts): its
   * group commits are replicated there. Absent: a local log only (the single node, a conversion).
   */
  readonly clusterShard?: number
}

const warnToStderr = (line: string) => { process.stderr.write(`${line}\n`) }

/**
 * Cluster mode, at start, before replay: the local records past seq, never answered (src/cluster/shard-replica.ts),
 * dropped with what stands on them: snapshots past seq (they may hold those records' effects), and the webhook
 * outbox items and delivery rows of those records (their events never happened). Refused, nothing changed, when a
 * snapshot to drop stands for records retention deleted: replay could not rebuild its state.
 */
async function dropUnanswered(log: CommandLog, seq: number): Promise<{ records: number; snapshots: string[] }> {
  const onDisk = snapshotSeqsOnDisk(log.root)
  const pastSeq = [...onDisk.workspaces.values(), onDisk.system?.seq ?? 0].some((at) => at > seq)
  if (pastSeq && log.firstSeq > 1) throw new Error(`a snapshot past seq ${seq} stands for records retention deleted (the log begins at seq ${log.firstSeq})`)
  let snapshots: string[] = []
  const records = await log.dropAfter(seq, () => {
    snapshots = removeSnapshotsAfter(log.root, seq)
    for (const name of sideDatabases) {
      const db = log.sideDb(name)
      for (const key of [...db.getKeys({})]) if (typeof key === 'string' && parseOutboxKey(key).seq > seq) db.remove(key)
    }
  })
  return { records, snapshots }
}

/**
 * Cluster mode: the log's replica in the database, acquired (or followed, as a standby) before anything is replayed
 * or appended, its group commits then committed there too. The log stands by (refusing appends and answers) until
 * the replica serves the shard; when the shard is lost the log steps down (its requests answer 503). Records
 * followed from the database go into the local log, and into memory once replay built it. Null for a local log.
 */
/** What a LocalNode hears of its replica: set once the node exists (the replica is opened before it). */
interface ReplicaEvents {
  followedSystem: Set<(command: SystemCommand) => void>
  /** The first seq the replica wrote into the local log before memory was built (its start's catch-up), or null. */
  caughtUpFromSeq: number | null
  serving: () => void
  lost: () => void
}

/**
 * A standby keeps what the owner wrote beside each followed record (webhook outbox items and their delivery rows,
 * the same bytes), so that it delivers them if it takes the shard over; it delivers nothing while it follows.
 */
async function keepSideWrites(log: CommandLog, sides: readonly SideWrites[]): Promise<void> {
  await Promise.all(sides.flatMap((side) => side.puts.map((put) => log.sideDb(put.db).put(put.key, put.value))))
}

async function replicaOf(config: Config, hooks: LocalNodeHooks, log: CommandLog, runtime: Runtime, memoryBuilt: () => boolean, events: ReplicaEvents): Promise<ShardReplica | null> {
  if (config.cluster === null || hooks.clusterShard === undefined) return null
  log.standBy(new ShardNotOwned(hooks.clusterShard, 'another node owns it, or it is being taken over'))
  const claims = config.cluster.claims
  const replica = await ShardReplica.open({
    databaseUrl: config.cluster.databaseUrl, nodeId: config.cluster.nodeId, nodeUrl: config.cluster.nodeUrl, shard: hooks.clusterShard,
    claim: claims === null || claims.includes(hooks.clusterShard),
    warn: hooks.warn ?? warnToStderr,
    onLost: (error) => {
      log.stepDown(error)
      events.lost()
    },
    onServing: () => {
      log.resume()
      events.serving()
    },
    local: {
      unansweredRecordsMax: config.groupCommitRecordsMax,
      dropAfter: (seq) => dropUnanswered(log, seq),
      lastSeq: () => log.lastSeq,
      recordAt: (seq) => log.recordBytes(seq),
      write: async (firstSeq, records) => {
        await log.appendFollowed(firstSeq, records)
        // Read before memory is built: replay applies these and keeps what the owner wrote beside them (open()).
        if (!memoryBuilt()) return void (events.caughtUpFromSeq ??= firstSeq)
        const sides: SideWrites[] = []
        records.forEach((bytes, index) => {
          const read = decodeRecord(firstSeq + index, bytes)
          if (!read.ok) throw new Error(`record ${firstSeq + index} followed from the database is damaged: ${read.reason}`)
          const side = runtime.applyFollowed(firstSeq + index, read.record)
          if (side !== undefined) sides.push(side)
          // A key revoked on the owner closes its sockets here too; the shard set gives a new workspace to its shard.
          if (read.record.workspace !== null) return
          for (const observer of runtime.systemObservers) observer(read.record.command)
          for (const listener of events.followedSystem) listener(read.record.command)
        })
        await keepSideWrites(log, sides)
      },
    },
  })
  log.replicate = (firstSeq, records) => replica.append(firstSeq, records)
  await ensureWebhookDone(replica.database)
  return replica
}

export class LocalNode {
  readonly log: CommandLog
  readonly runtime: Runtime
  readonly shard: LocalShard
  readonly replay: ReplayReport
  readonly #config: Config
  readonly #hooks: LocalNodeHooks
  #retention: LogRetention | null = null
  #snapshots: NodeJS.Timeout | null = null
  #webhooks: WebhookDeliverer | null = null
  #webhooksDelivering = false
  /** Cluster mode: deliveries this node finished as owner, not yet told to the standbys (webhook-done.ts). */
  #doneDeliveries: DoneDelivery[] = []
  /** Cluster mode, a standby: the last finished delivery it read and dropped from its outbox. */
  #doneReadId = 0
  #handover: NodeJS.Timeout | null = null
  #handingOver: Promise<void> = Promise.resolve()
  #closing = false
  readonly #replica: ShardReplica | null
  readonly #followedSystem: Set<(command: SystemCommand) => void>

  private constructor(config: Config, hooks: LocalNodeHooks, log: CommandLog, runtime: Runtime, replay: ReplayReport, replica: ShardReplica | null, followedSystem: Set<(command: SystemCommand) => void>) {
    this.#followedSystem = followedSystem
    this.#config = config
    this.#hooks = hooks
    this.#replica = replica
    this.log = log
    this.runtime = runtime
    this.replay = replay
    this.shard = new LocalShard(runtime, hooks.onLogFailure)
  }

  /** Opens DATA_DIR/log and replays it (snapshots first); a damaged log (StoreDamaged) throws with the log closed again. */
  static async open(config: Config, hooks: LocalNodeHooks): Promise<LocalNode> {
    const log = new CommandLog({
      path: path.join(config.dataDir, 'log'), groupCommitRecordsMax: config.groupCommitRecordsMax, pendingRecordsMax: config.pendingRecordsMax,
      onCommit: hooks.onCommit, faults: hooks.logFaults,
    })
    const runtime = new Runtime(log, config.snapshotCommandsInterval, hooks.warn)
    let replica: ShardReplica | null = null
    let memoryBuilt = false
    const events: ReplicaEvents = { followedSystem: new Set(), caughtUpFromSeq: null, serving: () => undefined, lost: () => undefined }
    try {
      replica = await replicaOf(config, hooks, log, runtime, () => memoryBuilt, events)
      const caughtUp = events.caughtUpFromSeq === null ? null : { fromSeq: events.caughtUpFromSeq, into: [] }
      const replay = runtime.replay(hooks.clock, caughtUp)
      memoryBuilt = true
      if (caughtUp !== null) await keepSideWrites(log, caughtUp.into)
      // Workspaces made before seal keys existed get theirs, and their closed windows a signature (docs/API.md,
      // "The seal"). Not in the registry of several shards (its workspaces' states live in the shards), nor on a
      // standby (the owner gives them).
      if (hooks.registry !== true && (replica === null || replica.serving)) runtime.giveSealKeys(hooks.clock())
      await replica?.start()
      const node = new LocalNode(config, hooks, log, runtime, replay, replica, events.followedSystem)
      events.serving = () => node.#deliverWebhooks()
      events.lost = () => void node.#webhooks?.stop()
      return node
    } catch (error) {
      // Close the LMDB env so the data dir is left as found.
      await log.close()
      await replica?.close()
      throw error
    }
  }

  /** Cluster mode: whether a request is served here, forwarded to the shard's owner, or answered 503 (src/edge/forward.ts). */
  route(forwarded: boolean): ReplicaRoute {
    return this.#replica === null ? { kind: 'local' } : this.#replica.route(forwarded)
  }

  /** Cluster mode, a standby: each system command followed from the owner's log, once applied to memory. */
  onFollowedSystem(listener: (command: SystemCommand) => void): void {
    this.#followedSystem.add(listener)
  }

  /** On an empty data dir, the first workspace (UTC, default limits); false when the data dir had one. */
  createFirstWorkspace(id: string, tag: string): boolean {
    if (this.runtime.system.workspaces.size > 0) return false
    this.submitSystem({ type: 'workspace.create', at_ms: this.#hooks.clock(), id, time_zone: 'UTC', limits: limitsDefault, tag, ...newSealKeyFields() })
    return true
  }

  /** A system command applied at start (the first workspace, the first key); throws if refused. */
  submitSystem(command: SystemCommand): void {
    const submitted = this.runtime.submitSystem(command)
    if (!submitted.outcome.ok) throw new Error(`cannot apply ${command.type}: ${submitted.outcome.message}`)
  }

  /** Resolves once everything appended so far is durable. */
  durable(): Promise<void> {
    const log = this.log
    return new Promise<void>((resolve, reject) => log.afterDurable(log.lastSeq, (error) => (error === null ? resolve() : reject(error))))
  }

  /**
   * Housekeeping on: the periodic snapshot check with log retention, and webhook delivery (what the outbox
   * holds from before a restart or a kill -9, then what new commits add once durable).
   */
  start(): void {
    const config = this.#config
    const runtime = this.runtime
    const retention = new LogRetention(runtime, {
      // Neither setting: the default, two snapshot intervals' worth of records (resolveConfig says the same).
      commandsKept: config.logRetentionCommands ?? (config.logRetentionBytes === null ? 2 * config.snapshotCommandsInterval : null),
      bytesKept: config.logRetentionBytes, batchRecordsMax: config.logRetentionBatchRecordsMax,
      warn: this.#hooks.warn ?? warnToStderr,
    })
    this.#retention = retention
    this.#snapshots = setInterval(() => {
      runtime.snapshotDue(false)
      void retention.step()
    }, snapshotCheckIntervalMs)
    this.#snapshots.unref()
    this.#webhooks = this.#newWebhooks()
    // Cluster mode: only the node that serves the shard delivers; a standby starts delivering when it takes it over.
    if (this.#replica === null || this.#replica.serving) this.#deliverWebhooks()
    // The registry of several shards holds no workspace, so no webhook: nothing to hand over.
    if (this.#replica !== null && this.#hooks.registry !== true) {
      this.#handover = setInterval(() => { this.#handingOver = this.#handOver() }, handoverIntervalMs)
      this.#handover.unref()
    }
  }

  /**
   * Delivery on: what the outbox holds (a restart, a kill -9, or what a standby kept from its owner), then new
   * commits. After a takeover, what the old owner finished is dropped from the outbox first.
   */
  #deliverWebhooks(): void {
    const deliverer = this.#webhooks
    if (deliverer === null || this.#webhooksDelivering) return
    this.#webhooksDelivering = true
    if (this.#replica === null) return deliverer.start()
    void this.#handingOver.then(() => this.#dropDelivered()).catch((error: unknown) => this.#warnHandover(error)).finally(() => {
      if (!this.#closing) deliverer.start()
    })
  }

  /**
   * Cluster mode, once a second: the owner tells the standbys which deliveries it finished; a standby drops those from
   * the outbox it keeps for a takeover, so that a new owner delivers again only what finished in the old one's last second.
   */
  async #handOver(): Promise<void> {
    const replica = this.#replica!
    try {
      if (replica.serving) {
        const done = this.#doneDeliveries
        this.#doneDeliveries = []
        await publishDone(replica.database, replica.shard, done).catch((error: unknown) => {
          this.#doneDeliveries = [...done, ...this.#doneDeliveries]
          throw error
        })
      } else if (replica.following) await this.#dropDelivered()
    } catch (error) {
      this.#warnHandover(error)
    }
  }

  /** A standby (or a new owner before it delivers): the deliveries its owner finished, their rows kept, out of the outbox. */
  async #dropDelivered(): Promise<void> {
    const replica = this.#replica!
    for (let page = 0; page < handoverPagesMax; page++) {
      const { done, lastId } = await readDone(replica.database, replica.shard, this.#doneReadId)
      if (done.length === 0) return
      await this.log.root.transaction(() => {
        for (const { key, row } of done) {
          void this.log.sideDb('deliveries').put(key, row)
          void this.log.sideDb('outbox').remove(key)
        }
      })
      this.#doneReadId = lastId
    }
  }

  #handoverWarned = false
  #warnHandover(error: unknown): void {
    if (this.#handoverWarned) return
    this.#handoverWarned = true
    const warn = this.#hooks.warn ?? warnToStderr
    warn(`trueup: cluster: handing webhook deliveries over failed (tried again each second): ${error instanceof Error ? error.message : String(error)}`)
  }

  #newWebhooks(): WebhookDeliverer {
    const config = this.#config
    const hooks = this.#hooks
    const runtime = this.runtime
    const deliverer = new WebhookDeliverer({
      log: this.log,
      lookup: (id) => {
        for (const actor of runtime.actors.values()) {
          const subscription = actor.state.webhooks.subscriptions.get(id)
          if (subscription !== undefined) return subscription
        }
        return undefined
      },
      clock: hooks.clock, random: Math.random,
      timeoutMs: config.webhookTimeoutMs, backoffBaseMs: config.webhookBackoffBaseMs, backoffCapMs: config.webhookBackoffCapMs,
      retryWindowMs: config.webhookRetryWindowMs, concurrencyMax: config.webhookConcurrencyMax,
      onAttempt: (result) => hooks.onWebhookAttempt?.(result), onGiveUp: () => hooks.onWebhookGiveUp?.(),
      onDone: (key, row) => { if (this.#replica !== null) this.#doneDeliveries.push({ key, row }) },
      warn: hooks.webhookWarn ?? ((message, error) => warnToStderr(`${message}: ${error instanceof Error ? error.message : String(error)}`)),
    })
    return deliverer
  }

  /** A test seam (probe.ts): run against this node's runtime, which holds every workspace. */
  async probe(probe: Probe): Promise<unknown[]> {
    return [await runProbe(this.runtime, probe)]
  }

  get retention(): LogRetention {
    return this.#retention!
  }

  get webhooks(): WebhookDeliverer {
    return this.#webhooks!
  }

  /** No more snapshot checks nor retention batches (the first step of a stop; the answers in flight still flow). */
  async stopHousekeeping(): Promise<void> {
    if (this.#snapshots !== null) clearInterval(this.#snapshots)
    this.#snapshots = null
    await this.#retention?.stop()
  }

  /** Webhook attempts in flight aborted (their events stay in the outbox), the log flushed, snapshots written, the log closed. */
  async close(): Promise<{ readonly snapshotsWrittenCount: number; readonly durableSeq: number }> {
    this.#closing = true
    if (this.#handover !== null) clearInterval(this.#handover)
    await this.#handingOver
    await this.stopHousekeeping()
    await this.#webhooks?.stop()
    // The owner's last finished deliveries, so that the next owner does not deliver them again.
    if (this.#replica?.serving === true && this.#doneDeliveries.length > 0) await this.#handOver()
    await this.log.idle()
    const snapshotsWrittenCount = this.runtime.snapshotDue(true)
    const durableSeq = this.log.durableSeq
    await this.log.close()
    await this.#replica?.close()
    return { snapshotsWrittenCount, durableSeq }
  }
}
