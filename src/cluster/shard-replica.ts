/**
 * @module One local log's replica in PostgreSQL, as a cluster node holds it (docs/CLUSTER.md): the shard claimed at
 * start (or taken over once the lease of this node's earlier life lapsed), its lease renewed on a timer, and each
 * group commit appended, fenced by the epoch, before its answers go out. When the shard is lost (an append fenced, a
 * renewal finding another owner) the replica steps down: every later append fails with ShardNotOwned, and `onLost`
 * tells the log, whose waiting and later requests then answer 503 `unavailable`.
 */

import { AppendOutcomeUnknown, appendThroughFailover } from './append-outcome.js'
import { FencedError, PgLog, type OwnedShard } from './pg-log.js'

/** How long a claim or a renewal holds a shard, in the database's clock: another node may take it this long after the last renewal. */
export const leaseMs = 3_000
/** Renewals this often: three chances within one lease before it lapses. */
export const renewIntervalMs = 1_000
/** Connections per replica (its appends, one after the other, and its renewals). */
const replicaPoolSize = 2

/** The shard is not (or no longer) this node's: nothing of the request was written; another node answers it. */
export class ShardNotOwned extends Error {
  constructor(readonly shard: number, reason: string) {
    super(`shard ${shard} is not this node's (${reason})`)
    this.name = 'ShardNotOwned'
  }
}

export interface ShardReplicaOptions {
  readonly databaseUrl: string
  readonly nodeId: string
  /** The shard's number in the database (a data dir's shards 0..SHARDS-1, its registry SHARDS). */
  readonly shard: number
  /** The last seq of the local log: the database's log of the shard must end at the same seq. */
  readonly localLastSeq: number
  readonly warn: (line: string) => void
  /** Called once when the shard is lost, with why. */
  readonly onLost: (error: ShardNotOwned) => void
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The shard's placement: claimed when nobody has it, taken over when its lease lapsed. Held by this node's earlier
 * life (a restart within the lease), it is waited for until it lapses, then taken over: the epoch goes up, which
 * fences that earlier process should it still be running. Null when another node holds it.
 */
async function acquire(log: PgLog, shard: number, nodeId: string): Promise<OwnedShard | null> {
  const attemptsMax = Math.ceil(leaseMs / renewIntervalMs) + 3
  for (let attempt = 0; attempt < attemptsMax; attempt++) {
    const owned = await log.acquire(shard)
    if (owned !== null) return owned
    const seen = await log.placement(shard)
    if (seen !== null && seen.owner !== nodeId) return null
    await sleep(renewIntervalMs)
  }
  return null
}

export class ShardReplica {
  #owned: OwnedShard | null
  #lost: ShardNotOwned | null = null
  #timer: NodeJS.Timeout | null = null
  /** A renewal in flight (it may wait for a failover of the database): the next tick does not start another. */
  #renewing = false

  private constructor(private readonly log: PgLog, private readonly options: ShardReplicaOptions, owned: OwnedShard | null, notOwned: ShardNotOwned | null) {
    this.#owned = owned
    this.#lost = notOwned
    if (owned !== null) {
      this.#timer = setInterval(() => void this.#renew(), renewIntervalMs)
      this.#timer.unref()
    }
  }

  /**
   * Connects, acquires the shard and checks that the database's log of it ends where the local log does. A shard
   * held by another node, or whose logs differ (catching up from the database is not built yet), is not served:
   * the replica starts lost, with a warning saying why.
   */
  static async open(options: ShardReplicaOptions): Promise<ShardReplica> {
    const log = await PgLog.open({ url: options.databaseUrl, node: options.nodeId, leaseMs, poolSize: replicaPoolSize })
    let owned: OwnedShard | null
    try {
      owned = await acquire(log, options.shard, options.nodeId)
    } catch (error) {
      await log.close()
      throw error
    }
    if (owned === null) return ShardReplica.#notServed(log, options, 'another node holds it')
    const databaseLastSeq = owned.nextSeq - 1
    if (databaseLastSeq !== options.localLastSeq) {
      // Held, but not served: the lease is left to lapse so that a node whose log matches may take the shard.
      return ShardReplica.#notServed(log, options, `its log in the database ends at seq ${databaseLastSeq}, the local log at ${options.localLastSeq}; catching up from the database is not built yet`)
    }
    return new ShardReplica(log, options, owned, null)
  }

  static #notServed(log: PgLog, options: ShardReplicaOptions, reason: string): ShardReplica {
    const notOwned = new ShardNotOwned(options.shard, reason)
    options.warn(`trueup: cluster: not serving ${notOwned.message}: its requests answer 503`)
    return new ShardReplica(log, options, null, notOwned)
  }

  get shard(): number { return this.options.shard }
  /** The epoch this node holds the shard at; null when it does not. */
  get epoch(): number | null { return this.#lost === null ? this.#owned?.epoch ?? null : null }
  /** Why the shard is not served, or null while it is. */
  get lost(): ShardNotOwned | null { return this.#lost }

  /**
   * Appends one group commit (the local log's records firstSeq.. in order) as one fenced transaction; resolves once
   * PostgreSQL committed it. A fenced append (another node took the shard) writes nothing: the replica steps down.
   */
  async append(firstSeq: number, records: readonly Uint8Array[]): Promise<void> {
    const owned = this.#owned
    if (this.#lost !== null || owned === null) throw this.#lost ?? new ShardNotOwned(this.shard, 'not acquired')
    // The database's seqs are the local log's: a gap would mean a group commit went unreplicated.
    if (owned.nextSeq !== firstSeq) throw this.#stepDown(`the database's log is at seq ${owned.nextSeq - 1}, this group commit starts at ${firstSeq}`)
    try {
      // A failover of the database during the append is settled on the new primary (src/cluster/append-outcome.ts).
      await appendThroughFailover(this.log, owned, records)
    } catch (error) {
      if (error instanceof FencedError) throw this.#stepDown(`another node took it over (epoch ${owned.epoch} fenced)`)
      if (error instanceof AppendOutcomeUnknown) throw this.#stepDown(error.message)
      throw error
    }
  }

  async #renew(): Promise<void> {
    const owned = this.#owned
    if (owned === null || this.#lost !== null || this.#renewing) return
    this.#renewing = true
    try {
      if (!(await owned.renew())) this.#stepDown(`another node took it over (lease of epoch ${owned.epoch} lost)`)
    } catch (error) {
      // The database unreachable for a moment: the next renewal tries again; if the lease lapses meanwhile and
      // another node takes the shard, the next append or renewal is fenced.
      this.options.warn(`trueup: cluster: renewing the lease of shard ${this.shard} failed: ${error instanceof Error ? error.message : String(error)}`)
    } finally {
      this.#renewing = false
    }
  }

  #stepDown(reason: string): ShardNotOwned {
    if (this.#lost !== null) return this.#lost
    const lost = new ShardNotOwned(this.shard, reason)
    this.#lost = lost
    if (this.#timer !== null) clearInterval(this.#timer)
    this.#timer = null
    this.options.warn(`trueup: cluster: stepping down: ${lost.message}; its requests now answer 503`)
    this.options.onLost(lost)
    return lost
  }

  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer)
    this.#timer = null
    await this.log.close()
  }
}
