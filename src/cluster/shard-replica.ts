/**
 * @module One local log's replica in PostgreSQL, as a cluster node holds it (docs/CLUSTER.md). The shard is claimed
 * at start (or taken over once the lease of this node's earlier life lapsed), its lease renewed on a timer, and each
 * group commit appended, fenced by the epoch, before its answers go out. A shard another node owns is followed
 * instead: this node is its standby, writing the owner's records into the local log and memory as they commit
 * (PgTail), and taking the shard over once the owner's lease lapses, after applying the database's log to its end.
 * When the shard is lost (an append fenced, a renewal finding another owner) the replica steps down: every later
 * append fails with ShardNotOwned, and `onLost` tells the log, whose waiting and later requests answer 503.
 * `route` says, for the HTTP edge, whether a request is served here, forwarded to the owner, or answered 503.
 */

import { AppendOutcomeUnknown, appendThroughFailover } from './append-outcome.js'
import { FencedError, PgLog, type LogRecord, type OwnedShard } from './pg-log.js'
import { PgTail } from './pg-tail.js'
import { registerNode, seePlacement, type SeenPlacement } from './node-directory.js'

/** How long a claim or a renewal holds a shard, in the database's clock: another node may take it this long after the last renewal. */
export const leaseMs = 3_000
/** Renewals this often (three chances within one lease before it lapses); a standby looks at the placement as often. */
export const renewIntervalMs = 1_000
/** Connections per replica (its appends, one after the other, its renewals, a standby's reads). */
const replicaPoolSize = 2
/** Records read from the database per page while catching up. */
const catchUpPageRecordsMax = 1_000

/** The shard is not (or no longer) this node's: nothing of the request was written; another node answers it. */
export class ShardNotOwned extends Error {
  constructor(readonly shard: number, reason: string) {
    super(`shard ${shard} is not this node's (${reason})`)
    this.name = 'ShardNotOwned'
  }
}

/** The local log as a standby writes it: records the database holds, at their own seqs. */
export interface LocalFollow {
  /** The local log's last seq. */
  lastSeq(): number
  /** Local record seq as stored, or null when the log no longer holds it (retention). */
  recordAt(seq: number): Buffer | null
  /** Writes records firstSeq.. (firstSeq = lastSeq() + 1) into the local log, and into memory once it is built; resolves once durable. */
  write(firstSeq: number, records: readonly Buffer[]): Promise<void>
}

export interface ShardReplicaOptions {
  readonly databaseUrl: string
  readonly nodeId: string
  /** Where this node answers (NODE_URL): other nodes forward its shards' requests there. */
  readonly nodeUrl: string
  /** The shard's number in the database (a data dir's shards 0..SHARDS-1, its registry SHARDS). */
  readonly shard: number
  /** False: not acquired at start (NODE_SHARDS leaves it out): this node stands by for it, and may take it over later. */
  readonly claim?: boolean
  readonly local: LocalFollow
  readonly warn: (line: string) => void
  /** Called once when the shard is lost, with why. */
  readonly onLost: (error: ShardNotOwned) => void
  /** Called when this node serves the shard: at open, or after a takeover once the database's log is applied. */
  readonly onServing: () => void
}

/** Where a request for the shard goes (the HTTP edge's forwarding, src/edge/forward.ts). */
export type ReplicaRoute =
  | { readonly kind: 'local' }
  | { readonly kind: 'forward'; readonly url: string }
  | { readonly kind: 'unavailable'; readonly reason: string }

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

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

export class ShardReplica {
  #owned: OwnedShard | null = null
  /** Set once this node serves the shard (its memory holds the database's whole log). */
  #serving = false
  #lost: ShardNotOwned | null = null
  /** A standby: follows the owner's records, and may take the shard over. */
  #following = false
  #tail: PgTail | null = null
  /** The page of followed records being written, which a takeover waits for. */
  #applying: Promise<void> = Promise.resolve()
  #seen: SeenPlacement | null = null
  #timer: NodeJS.Timeout | null = null
  /** Memory is built (start): a standby may now apply records to it and take the shard over. */
  #started = false
  #watching = false
  #renewing = false
  #closed = false

  private constructor(private readonly log: PgLog, private readonly options: ShardReplicaOptions) {}

  /**
   * Connects, records this node's URL, acquires the shard or becomes its standby, and brings the local log to the
   * database's end (records written there, not yet in memory: replay reads them). A local log that is not a prefix
   * of the database's (records past its end, or different ones: the unanswered tail of a fenced life) is not
   * served nor followed: the replica starts lost, with a warning saying why, and forwards.
   */
  static async open(options: ShardReplicaOptions): Promise<ShardReplica> {
    const log = await PgLog.open({ url: options.databaseUrl, node: options.nodeId, leaseMs, poolSize: replicaPoolSize })
    const replica = new ShardReplica(log, options)
    try {
      await registerNode(log, options.nodeUrl)
      await replica.#begin(options.claim === false ? null : await acquire(log, options.shard, options.nodeId))
    } catch (error) {
      await log.close()
      throw error
    }
    // Renewals from now on (a replay may outlast a lease); a standby's watch does nothing until start().
    replica.#timer = setInterval(() => replica.#tick(), renewIntervalMs)
    replica.#timer.unref()
    return replica
  }

  async #begin(owned: OwnedShard | null): Promise<void> {
    const databaseLastSeq = owned === null ? await this.#databaseLastSeq() : owned.nextSeq - 1
    const diverged = await this.#divergence(databaseLastSeq)
    if (diverged !== null) {
      // Held, but not served: the lease is left to lapse so that a node whose log matches may take the shard.
      this.#notServed(diverged)
      return
    }
    await this.#catchUp()
    if (owned === null) {
      this.#following = true
      this.#seen = await seePlacement(this.log, this.shard)
      return
    }
    this.#owned = owned
    this.#serve()
  }

  /** Why the local log is not a prefix of the database's, or null when it is. */
  async #divergence(databaseLastSeq: number): Promise<string | null> {
    const localLastSeq = this.options.local.lastSeq()
    if (localLastSeq > databaseLastSeq) return `its log in the database ends at seq ${databaseLastSeq}, the local log at ${localLastSeq}: the local records past it were never answered`
    if (localLastSeq === 0) return null
    const local = this.options.local.recordAt(localLastSeq)
    const [remote] = await this.log.read(this.shard, localLastSeq - 1, 1)
    if (local !== null && (remote === undefined || remote.seq !== localLastSeq || !remote.record.equals(local))) {
      return `local record ${localLastSeq} differs from the database's: it was never answered`
    }
    return null
  }

  async #databaseLastSeq(): Promise<number> {
    const result = await this.log.pool.query<{ last: string }>('SELECT coalesce(max(seq), 0) AS last FROM log WHERE shard = $1', [this.shard])
    return Number(result.rows[0].last)
  }

  /** Writes the database's records after the local log's end into it, page by page, up to the database's end. */
  async #catchUp(): Promise<void> {
    for (;;) {
      const records = await this.log.read(this.shard, this.options.local.lastSeq(), catchUpPageRecordsMax)
      if (records.length === 0) return
      await this.#write(records)
    }
  }

  async #write(records: readonly LogRecord[]): Promise<void> {
    const fresh = records.filter((record) => record.seq > this.options.local.lastSeq())
    if (fresh.length === 0) return
    await this.options.local.write(fresh[0].seq, fresh.map((record) => record.record))
  }

  /** Memory is built from the local log: renewals (an owner) or following and watching the placement (a standby) begin. */
  async start(): Promise<void> {
    this.#started = true
    if (this.#following) await this.#startTail()
  }

  #tick(): void {
    if (this.#closed) return
    if (this.#owned !== null && this.#lost === null) return void this.#renew()
    if (!this.#started) return
    if (this.#following && this.#tail === null) void this.#startTail().catch((error: unknown) => this.#warnOnce('following', error))
    void this.#watch()
  }

  async #startTail(): Promise<void> {
    const tail = await PgTail.start({
      log: this.log, shard: this.shard, appliedSeq: this.options.local.lastSeq(),
      onRecords: (records) => {
        this.#applying = this.#write(records)
        return this.#applying
      },
      onError: (error) => {
        // Followed again at the next tick (the database back, or the records written).
        if (this.#tail === tail) this.#tail = null
        this.#warnOnce('following', error)
      },
    })
    if (this.#closed || !this.#following) await tail.close()
    else this.#tail = tail
  }

  /** A standby's look at the placement (where to forward, and whether the owner's lease lapsed: then take over). */
  async #watch(): Promise<void> {
    if (this.#watching) return
    this.#watching = true
    try {
      this.#seen = await seePlacement(this.log, this.shard)
      if (this.#following && this.#seen !== null && this.#seen.lapsed) await this.#takeOver(this.#seen.epoch)
    } catch (error) {
      this.#warnOnce('watching the placement', error)
    } finally {
      this.#watching = false
    }
  }

  /**
   * The owner's lease lapsed: the epoch goes up (fencing the old owner: its appends from now on write nothing), then
   * every record up to the database's end is applied, and only then is the shard served. Of standbys racing, one wins.
   */
  async #takeOver(seenEpoch: number): Promise<void> {
    const owned = await this.log.takeover(this.shard, seenEpoch)
    if (owned === null) return
    this.#owned = owned
    this.#following = false
    await this.#tail?.close()
    this.#tail = null
    await this.#applying.catch(() => undefined)
    try {
      await this.#catchUp()
    } catch (error) {
      this.#stepDown(`the database's log could not be applied after the takeover: ${messageOf(error)}`)
      return
    }
    const localLastSeq = this.options.local.lastSeq()
    if (localLastSeq !== owned.nextSeq - 1) {
      this.#stepDown(`after the takeover the local log ends at seq ${localLastSeq}, the database's at ${owned.nextSeq - 1}`)
      return
    }
    this.options.warn(`trueup: cluster: took shard ${this.shard} over at epoch ${owned.epoch}, its log applied to seq ${localLastSeq}; serving it`)
    this.#serve()
  }

  #serve(): void {
    this.#serving = true
    this.options.onServing()
  }

  #notServed(reason: string): void {
    this.#lost = new ShardNotOwned(this.shard, reason)
    this.options.warn(`trueup: cluster: not serving ${this.#lost.message}: its requests are forwarded to its owner, or answer 503`)
  }

  get shard(): number { return this.options.shard }
  /** The replica's connection to the database (the webhook deliveries finished: webhook-done.ts). */
  get database(): PgLog { return this.log }
  /** The epoch this node holds the shard at; null when it does not. */
  get epoch(): number | null { return this.#lost === null ? this.#owned?.epoch ?? null : null }
  /** Why the shard is not served, or null while it is (or may be, after a takeover). */
  get lost(): ShardNotOwned | null { return this.#lost }
  /** Whether this node serves the shard now. */
  get serving(): boolean { return this.#serving && this.#lost === null }
  /** Whether this node is the shard's standby now (following its owner's log). */
  get following(): boolean { return this.#following }

  /** Where a request for this shard goes; one already forwarded by another node is never forwarded again. */
  route(forwarded: boolean): ReplicaRoute {
    if (this.serving) return { kind: 'local' }
    const seen = this.#seen
    if (forwarded || seen === null || seen.lapsed || seen.owner === this.options.nodeId || seen.url === null) {
      return { kind: 'unavailable', reason: 'The shard of this request is being taken over by another node; retry shortly.' }
    }
    return { kind: 'forward', url: seen.url }
  }

  /**
   * Appends one group commit (the local log's records firstSeq.. in order) as one fenced transaction; resolves once
   * PostgreSQL committed it. A fenced append (another node took the shard) writes nothing: the replica steps down.
   */
  async append(firstSeq: number, records: readonly Uint8Array[]): Promise<void> {
    const owned = this.#owned
    if (this.#lost !== null || owned === null || !this.#serving) throw this.#lost ?? new ShardNotOwned(this.shard, 'not acquired')
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
      this.options.warn(`trueup: cluster: renewing the lease of shard ${this.shard} failed: ${messageOf(error)}`)
    } finally {
      this.#renewing = false
    }
  }

  /** Lost for the rest of the process (memory may hold records the database refused); requests are then forwarded. */
  #stepDown(reason: string): ShardNotOwned {
    if (this.#lost !== null) return this.#lost
    const lost = new ShardNotOwned(this.shard, reason)
    this.#lost = lost
    this.#following = false
    this.options.warn(`trueup: cluster: stepping down: ${lost.message}; its requests are now forwarded to its owner, or answer 503`)
    this.options.onLost(lost)
    return lost
  }

  #warned = new Set<string>()
  /** One warning per kind of trouble, not one a second. */
  #warnOnce(what: string, error: unknown): void {
    if (this.#warned.has(what)) return
    this.#warned.add(what)
    this.options.warn(`trueup: cluster: ${what} shard ${this.shard} failed (tried again each second): ${messageOf(error)}`)
  }

  async close(): Promise<void> {
    this.#closed = true
    if (this.#timer !== null) clearInterval(this.#timer)
    this.#timer = null
    await this.#tail?.close()
    this.#tail = null
    await this.#applying.catch(() => undefined)
    await this.log.close()
  }
}
