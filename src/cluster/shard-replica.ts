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
import { LeaseRenewer } from './lease-renewer.js'
import { FencedError, PgLog, type LogRecord, type OwnedShard } from './pg-log.js'
import { PgTail } from './pg-tail.js'
import { registerNode, seePlacement, type SeenPlacement } from './node-directory.js'

/** How long a claim or a renewal holds a shard, in the database's clock: another node may take it this long after the last renewal. */
export const leaseMs = 3_000
/**
 * Renewals this often, from the owner's renewer thread (src/cluster/lease-renewer.ts): a renewal is due at most this
 * long after the last, so an owner whose whole process is paused (stopped, or starved of CPU) for less than
 * leaseMs - renewIntervalMs - renewRoundTripMarginMs keeps its lease (docs/CLUSTER.md). A blocked event loop alone
 * does not hold renewals up, up to the renewer's mainThreadStallMsMax.
 */
export const renewIntervalMs = 500
/** What of the lease is left for a late renewal's round trip to the database (and the timer's own lateness). */
export const renewRoundTripMarginMs = 300
/** The longest pause of the whole process (stopped, starved of CPU) an owner is sure to keep its lease through: 2.2 s. */
export const ownerPauseMsMax = leaseMs - renewIntervalMs - renewRoundTripMarginMs
/** A standby looks at the placement this often (where to forward, whether the owner's lease lapsed). */
export const watchIntervalMs = 1_000
/** Connections per replica (its appends, one after the other, its renewals, a standby's reads). */
const replicaPoolSize = 2
/** A local log written into an empty database (a data dir joining the cluster): records and bytes per insert. */
const importPageRecordsMax = 1_000
const importPageBytesMax = 4 * 1024 * 1024
/**
 * The lease taken before that import, so that no other node takes the shard while it runs: the usual lease plus the
 * log's bytes at this rate (1 MB/s, far below what PostgreSQL takes here), in bytes per ms.
 */
const importBytesPerMsMin = 1_000

/** The local log's records 1..lastSeq in pages of importPageRecordsMax records or importPageBytesMax bytes at most. */
function* localPages(local: LocalFollow, lastSeq: number): Generator<Buffer[]> {
  let page: Buffer[] = []
  let bytes = 0
  for (let seq = 1; seq <= lastSeq; seq++) {
    const record = local.recordAt(seq)
    if (record === null) throw new Error(`local record ${seq} is missing`)
    if (page.length > 0 && (page.length === importPageRecordsMax || bytes + record.length > importPageBytesMax)) {
      yield page
      page = []
      bytes = 0
    }
    page.push(record)
    bytes += record.length
  }
  if (page.length > 0) yield page
}

/** Records read from the database per page while catching up. */
const catchUpPageRecordsMax = 1_000
/**
 * A takeover's UPDATE waits this long for the placement row, then gives up (SQLSTATE 55P03): an owner's transaction
 * holds the row for milliseconds, so one holding it this long after its lease lapsed belongs to a stopped or hung
 * process (docs/CLUSTER.md, "Takeover").
 */
export const takeoverLockWaitMs = 1_000
/** A step of a takeover attempt (a query, closing the tail, a page written) that has not finished after this long is abandoned. */
export const takeoverStepMsMax = 10_000

/** SQLSTATE lock_not_available: the takeover's lock_timeout ran out. */
const lockNotAvailable = '55P03'

/** A takeover attempt in progress: the step it is at and since when; abandoned once a step outlasts takeoverStepMsMax. */
interface Attempt {
  step: string
  stepStartedMs: number
  abandoned: boolean
}

/** The session that held the placement row past the lease, ended so that a takeover can go on. */
interface EndedHolder {
  readonly pid: number
  readonly application: string
  readonly state: string
  readonly openMs: number
}

/**
 * Ends the session whose transaction holds the shard's placement row (its xmax, a transaction still running) when
 * the lease of the epoch seen has lapsed, that transaction has been open longer than the takeover's lock wait, and
 * the server is waiting for its client (idle in transaction, or reading the client's next message): a stopped
 * owner's append or read-back, left half-sent. A session the server is working on (a commit waiting for a
 * synchronous standby, say) is never ended. Ending it rolls its transaction back, so nothing it did is committed (an
 * append's outcome is then settled by its node as after a lost connection, and fenced).
 */
async function endStuckHolder(log: PgLog, shard: number, epoch: number): Promise<EndedHolder[]> {
  const result = await log.pool.query<{ pid: number; application: string; state: string; open_ms: string }>(
    `SELECT l.pid, coalesce(a.application_name, '') AS application, coalesce(a.state, '') AS state,
       (extract(epoch FROM clock_timestamp() - a.xact_start) * 1000)::bigint AS open_ms, pg_terminate_backend(l.pid) AS ended
     FROM placement p
     JOIN pg_locks l ON l.locktype = 'transactionid' AND l.transactionid = p.xmax AND l.mode = 'ExclusiveLock' AND l.granted
     JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE p.shard = $1 AND p.epoch = $2 AND p.lease_until < clock_timestamp() AND l.pid <> pg_backend_pid()
       AND a.xact_start < clock_timestamp() - $3 * interval '1 millisecond'
       AND (a.state LIKE 'idle in transaction%' OR a.wait_event = 'ClientRead')
       AND EXISTS (SELECT 1 FROM pg_locks r WHERE r.pid = l.pid AND r.relation = 'placement'::regclass AND r.granted)`,
    [shard, epoch, takeoverLockWaitMs])
  return result.rows.map((row) => ({ pid: row.pid, application: row.application, state: row.state, openMs: Number(row.open_ms) }))
}

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
  /** How many records a fenced life can leave unanswered at most: the one group commit whose append the database refused. */
  readonly unansweredRecordsMax: number
  /**
   * At start, before replay: removes the local records past seq (never answered: not the database's) and what stands
   * on them (snapshots and webhook outbox items past seq), in one transaction; resolves with how many records and
   * which snapshots. Rejects, changing nothing, when replay could not rebuild the state without them.
   */
  dropAfter(seq: number): Promise<{ readonly records: number; readonly snapshots: readonly string[] }>
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
 * Acquiring at start starts no attempt after this long: the lease of this node's earlier life lapses within leaseMs,
 * and a takeover that waited on its placement row has ended the session holding it well within a step's bound.
 */
export const acquireWindowMs = leaseMs + takeoverStepMsMax

/** A step of acquiring at start that has not answered within takeoverStepMsMax: the attempt is abandoned. */
class StepAbandoned extends Error {
  constructor(readonly step: string) {
    super(`${step} waited ${takeoverStepMsMax} ms`)
    this.name = 'StepAbandoned'
  }
}

/** The step's result, or StepAbandoned once it waited takeoverStepMsMax; a result that comes later goes to `late`. */
function withinStep<T>(step: string, promise: Promise<T>, late: (value: T) => void = () => undefined): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  let abandoned = false
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abandoned = true
      reject(new StepAbandoned(step))
    }, takeoverStepMsMax)
  })
  promise.then((value) => { if (abandoned) late(value) }, () => undefined)
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer))
}

/** What a takeover that waited takeoverLockWaitMs for the placement row says, with the sessions it ended. */
function lockWaitLine(shard: number, seenEpoch: number, ended: readonly EndedHolder[]): string {
  const held = ended.map((holder) => `pid ${holder.pid} (${holder.application || 'no application name'}, ${holder.state}, its transaction open ${holder.openMs} ms)`)
  return `trueup: cluster: taking shard ${shard} over waited ${takeoverLockWaitMs} ms for its placement row, held past the lapsed lease of epoch ${seenEpoch}`
    + (held.length > 0 ? ` by ${held.join(', ')}: ended it; tried again at the next second` : '; tried again at the next second')
}

/**
 * One attempt at acquiring the shard at start: the shard owned; null when another node holds it; 'wait' while the
 * lease of this node's earlier life runs (or its placement row is held). Each step is bounded as a standby's
 * takeover is: the UPDATE waits takeoverLockWaitMs for the row, then the session holding it past the lapsed lease
 * is ended (endStuckHolder); a step that does not answer within takeoverStepMsMax abandons the attempt.
 */
async function acquireOnce(log: PgLog, shard: number, nodeId: string, warn: (line: string) => void): Promise<OwnedShard | null | 'wait'> {
  const claimed = await withinStep('claiming the placement', log.claim(shard))
  if (claimed !== null) return claimed
  const seen = await withinStep('reading the placement', log.placement(shard))
  if (seen === null) return 'wait'
  if (seen.lapsed) {
    try {
      const step = `the UPDATE of the placement (epoch ${seen.epoch} seen)`
      const owned = await withinStep(step, log.takeover(shard, seen.epoch, takeoverLockWaitMs), (late) => {
        if (late !== null) warn(`trueup: cluster: shard ${shard} taken at epoch ${late.epoch} by an abandoned attempt at start: left to lapse`)
      })
      if (owned !== null) return owned
    } catch (error) {
      if ((error as { code?: unknown }).code !== lockNotAvailable) throw error
      warn(lockWaitLine(shard, seen.epoch, await withinStep('ending the session that holds the placement row', endStuckHolder(log, shard, seen.epoch))))
      return 'wait'
    }
  }
  return seen.owner === nodeId ? 'wait' : null
}

/**
 * The shard's placement: claimed when nobody has it, taken over when its lease lapsed. Held by this node's earlier
 * life (a restart within the lease), it is waited for until it lapses, then taken over: the epoch goes up, which
 * fences that earlier process should it still be running. Null when another node holds it, or when acquireWindowMs
 * passed (the node then stands by for the shard, and takes it over as any standby would).
 */
async function acquire(log: PgLog, shard: number, nodeId: string, warn: (line: string) => void): Promise<OwnedShard | null> {
  const deadlineMs = Date.now() + acquireWindowMs
  while (Date.now() < deadlineMs) {
    try {
      const owned = await acquireOnce(log, shard, nodeId, warn)
      if (owned !== 'wait') return owned
    } catch (error) {
      if (!(error instanceof StepAbandoned)) throw error
      warn(`trueup: cluster: acquiring shard ${shard} at start: ${error.message}; abandoned, tried again at the next second`)
    }
    await sleep(watchIntervalMs)
  }
  warn(`trueup: cluster: shard ${shard} not acquired within ${acquireWindowMs} ms of the start: standing by for it`)
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
  /** The takeover attempt (look at the placement, take it, apply the log) in progress, or null. */
  #attempt: Attempt | null = null
  /** When a standby last looked at the placement. */
  #watchedMs = 0
  /** The epoch whose takeover was last said to wait for the placement row. */
  #lockWaitSaidEpoch: number | null = null
  #closed = false

  private constructor(private readonly log: PgLog, private readonly options: ShardReplicaOptions, private readonly renewer: LeaseRenewer) {}

  /**
   * Connects, records this node's URL, acquires the shard or becomes its standby, and brings the local log to the
   * database's end (records written there, not yet in memory: replay reads them). A local log that is not a prefix
   * of the database's (records past its end, or different ones: the unanswered tail of a fenced life) first drops
   * its records past the last one both share; one that cannot (it diverges further back) is not served nor
   * followed: the replica starts lost, with a warning saying why, and forwards.
   */
  static async open(options: ShardReplicaOptions): Promise<ShardReplica> {
    let replica: ShardReplica | null = null
    // The renewer thread loads while the database is reached, so it is ready before the shard is acquired.
    const renewing = LeaseRenewer.start({
      url: options.databaseUrl, node: options.nodeId, shard: options.shard, leaseMs, renewIntervalMs, warn: options.warn,
      onLost: (reason) => { if (replica !== null) replica.#stepDown(reason) },
    })
    renewing.catch(() => undefined)
    const log = await PgLog.open({ url: options.databaseUrl, node: options.nodeId, leaseMs, poolSize: replicaPoolSize }).catch(async (error: unknown) => {
      await renewing.then((renewer) => renewer.stop(), () => undefined)
      throw error
    })
    try {
      replica = new ShardReplica(log, options, await renewing)
      await registerNode(log, options.nodeUrl)
      await replica.#begin(options.claim === false ? null : await acquire(log, options.shard, options.nodeId, options.warn))
    } catch (error) {
      await renewing.then((renewer) => renewer.stop(), () => undefined)
      await log.close()
      throw error
    }
    // Renewals from now on (a replay may outlast a lease), on the renewer thread; a standby's watch does nothing
    // until start().
    if (replica.#owned !== null && replica.#lost === null) replica.renewer.renew(replica.#owned.epoch)
    const opened = replica
    replica.#timer = setInterval(() => opened.#tick(), renewIntervalMs)
    replica.#timer.unref()
    return replica
  }

  async #begin(owned: OwnedShard | null): Promise<void> {
    if (owned !== null && owned.nextSeq === 1 && this.options.local.lastSeq() > 0) {
      const refused = await this.#importLocal(owned)
      if (refused !== null) return this.#notServed(refused)
    }
    const databaseLastSeq = owned === null ? await this.#databaseLastSeq() : owned.nextSeq - 1
    const diverged = await this.#divergence(databaseLastSeq)
    const refused = diverged === null ? null : await this.#dropUnanswered(databaseLastSeq, diverged)
    if (refused !== null) {
      // Held, but not served: the lease is left to lapse so that a node whose log matches may take the shard.
      this.#notServed(refused)
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

  /**
   * A data dir written by a single node (or kept from a cluster whose database was replaced) joining a database that
   * holds nothing of this shard: its records were answered, so they become the database's log, at their own seqs, in
   * one transaction, before the shard is served; the standbys then catch up from them. Null once written; else why
   * not (the shard is then not served: a node whose local log lacks its first records, deleted by retention, cannot
   * give the database the whole log, from which every other node would have to start).
   */
  async #importLocal(owned: OwnedShard): Promise<string | null> {
    const local = this.options.local
    const lastSeq = local.lastSeq()
    if (local.recordAt(1) === null) {
      return `the database holds none of its log and the local log no longer starts at seq 1 (retention deleted its first records): it cannot be written into the database whole (start this data dir as a single node, or give the cluster a data dir whose log starts at seq 1)`
    }
    let bytes = 0
    for (let seq = 1; seq <= lastSeq; seq++) bytes += local.recordAt(seq)?.length ?? 0
    const startedMs = Date.now()
    try {
      await owned.importLog(localPages(local, lastSeq), leaseMs + Math.ceil(bytes / importBytesPerMsMin))
    } catch (error) {
      return `writing its local log (records 1..${lastSeq}) into the database, which held none of it, failed, and nothing of it was written: ${messageOf(error)}`
    }
    this.options.warn(`trueup: cluster: shard ${this.shard}: the database held none of its log: wrote the local log's records 1..${lastSeq} (${bytes} bytes) into it in ${Date.now() - startedMs} ms (a data dir joining the cluster); the other nodes catch up from them`)
    return null
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

  /**
   * A local log that is not a prefix of the database's: the records past the last seq where both agree were never
   * answered (the tail of a fenced life: the database refused them, or took another node's records at those seqs),
   * so they are dropped, and the node goes on as any node whose log is behind. Null once dropped; else why not.
   */
  async #dropUnanswered(databaseLastSeq: number, why: string): Promise<string | null> {
    const local = this.options.local
    const localLastSeq = local.lastSeq()
    const matchedSeq = await this.#lastMatchingSeq(databaseLastSeq)
    if (matchedSeq === null) {
      return `${why}; no record among its last ${local.unansweredRecordsMax} + 1 matches the database's, so this is not the unanswered tail of a fenced life (replace its data dir to make it a standby)`
    }
    try {
      const dropped = await local.dropAfter(matchedSeq)
      const snapshots = dropped.snapshots.length > 0 ? `, and the snapshots past it (${dropped.snapshots.join(', ')})` : ''
      this.options.warn(`trueup: cluster: shard ${this.shard}: ${why}; dropped local records ${matchedSeq + 1}..${localLastSeq} (${dropped.records}), never answered${snapshots}: the local log ends at seq ${matchedSeq}, where it matches the database's; catching up from the database`)
      return null
    } catch (error) {
      return `${why}; its records past seq ${matchedSeq} could not be dropped: ${messageOf(error)}`
    }
  }

  /**
   * The last seq at which the local record equals the database's, looking back from where both logs end, over at
   * most unansweredRecordsMax records of the local log's end (a fenced life leaves one group commit unanswered); null
   * when none does (a log that diverges further back, or shares nothing with the database, is not such a tail). A
   * record retention deleted was durable, so replicated: the seq just below the local log's first counts as matching.
   */
  async #lastMatchingSeq(databaseLastSeq: number): Promise<number | null> {
    const local = this.options.local
    const lowestSeq = Math.max(1, local.lastSeq() - local.unansweredRecordsMax)
    const topSeq = Math.min(local.lastSeq(), databaseLastSeq)
    if (topSeq < lowestSeq) return null
    const rows = await this.log.read(this.shard, lowestSeq - 1, topSeq - lowestSeq + 1)
    const remote = new Map(rows.map((row) => [row.seq, row.record]))
    for (let seq = topSeq; seq >= lowestSeq; seq--) {
      const mine = local.recordAt(seq)
      if (mine === null || remote.get(seq)?.equals(mine) === true) return seq
    }
    return null
  }

  async #databaseLastSeq(): Promise<number> {
    const result = await this.log.pool.query<{ last: string }>('SELECT coalesce(max(seq), 0) AS last FROM log WHERE shard = $1', [this.shard])
    return Number(result.rows[0].last)
  }

  /**
   * Writes the database's records after the local log's end into it, page by page, up to the database's end. Within
   * a takeover attempt each page is a step of it; an abandoned attempt stops.
   */
  async #catchUp(attempt: Attempt | null = null): Promise<void> {
    for (;;) {
      const afterSeq = this.options.local.lastSeq()
      if (attempt !== null) this.#step(attempt, `reading the database's log after seq ${afterSeq}`)
      const records = await this.log.read(this.shard, afterSeq, catchUpPageRecordsMax)
      if (records.length === 0 || attempt?.abandoned === true) return
      if (attempt !== null) this.#step(attempt, `writing records ${records[0].seq}..${records[records.length - 1].seq} into the local log`)
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
    // An attempt stuck after its UPDATE holds the placement, and must not be renewed as if served: it steps down,
    // which stops the renewer.
    if (this.#attempt !== null) this.#abandonIfStuck(this.#attempt)
    if (this.#owned !== null && this.#lost === null) return
    if (!this.#started || Date.now() - this.#watchedMs < watchIntervalMs - renewIntervalMs / 2) return
    this.#watchedMs = Date.now()
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

  /**
   * A standby's look at the placement (where to forward, and whether the owner's lease lapsed: then take over). One
   * attempt at a time; one whose step outlasts takeoverStepMsMax is abandoned (#abandonIfStuck, at each tick) and the
   * next look starts another, so a call that never returns cannot end every later takeover.
   */
  async #watch(): Promise<void> {
    if (this.#attempt !== null) return
    const attempt: Attempt = { step: 'reading the placement', stepStartedMs: Date.now(), abandoned: false }
    this.#attempt = attempt
    let seenEpoch: number | null = null
    try {
      const seen = await seePlacement(this.log, this.shard)
      if (attempt.abandoned) return
      this.#seen = seen
      if (!this.#following || seen === null || !seen.lapsed) return
      seenEpoch = seen.epoch
      await this.#takeOver(attempt, seen.epoch)
    } catch (error) {
      if (attempt.abandoned) return
      if (seenEpoch !== null && (error as { code?: unknown }).code === lockNotAvailable) await this.#endHolder(seenEpoch)
      else this.#warnOnce('watching the placement', error)
    } finally {
      if (this.#attempt === attempt) this.#attempt = null
    }
  }

  #step(attempt: Attempt, step: string): void {
    attempt.step = step
    attempt.stepStartedMs = Date.now()
  }

  /**
   * Abandons an attempt whose step has waited past takeoverStepMsMax, saying which step and how long. Before the
   * placement was taken nothing is lost: the next tick tries again (and an abandoned attempt's late result is
   * dropped). After it, the local log's state is unknown (a page write that never ended): the node steps down, its
   * lease left to lapse, so that another node takes the shard.
   */
  #abandonIfStuck(attempt: Attempt): void {
    const waitedMs = Date.now() - attempt.stepStartedMs
    if (waitedMs < takeoverStepMsMax) return
    attempt.abandoned = true
    this.#attempt = null
    const holds = this.#owned !== null && !this.#serving
    this.options.warn(`trueup: cluster: a takeover attempt of shard ${this.shard} waited ${waitedMs} ms on ${attempt.step}; abandoned, ${holds ? 'stepping down' : 'tried again at the next second'}`)
    if (holds) this.#stepDown(`its takeover did not finish (${attempt.step} waited ${waitedMs} ms)`)
  }

  /** The takeover's UPDATE waited its lock_timeout for the placement row: the session holding it past the lapsed lease is ended. */
  async #endHolder(seenEpoch: number): Promise<void> {
    const ended = await endStuckHolder(this.log, this.shard, seenEpoch).catch((error: unknown) => {
      this.#warnOnce('ending the session that holds the placement row of', error)
      return []
    })
    // Said once per epoch when nothing could be ended (the next seconds' waits are the same), each time a session is.
    if (ended.length === 0 && this.#lockWaitSaidEpoch === seenEpoch) return
    this.#lockWaitSaidEpoch = seenEpoch
    this.options.warn(lockWaitLine(this.shard, seenEpoch, ended))
  }

  /**
   * The owner's lease lapsed: the epoch goes up (fencing the old owner: its appends from now on write nothing), then
   * every record up to the database's end is applied, and only then is the shard served. Of standbys racing, one wins.
   * An attempt abandoned before its UPDATE returned drops what it took: that epoch's lease is never renewed and
   * lapses, and a later attempt takes the shard again (the epoch fences the dropped one).
   */
  async #takeOver(attempt: Attempt, seenEpoch: number): Promise<void> {
    this.#step(attempt, `the UPDATE of the placement (epoch ${seenEpoch} seen)`)
    const owned = await this.log.takeover(this.shard, seenEpoch, takeoverLockWaitMs)
    if (owned === null) return
    if (attempt.abandoned || this.#owned !== null || this.#lost !== null || this.#closed) {
      this.options.warn(`trueup: cluster: shard ${this.shard} taken at epoch ${owned.epoch} by an abandoned takeover attempt: left to lapse`)
      return
    }
    this.#owned = owned
    this.#following = false
    // Renewed from the moment of the takeover, so a long tail does not lose it.
    this.renewer.renew(owned.epoch)
    // Closed at once (no more pages are handed over); its connection ends in the background, never waited for.
    const tail = this.#tail
    this.#tail = null
    void tail?.close()
    this.#step(attempt, 'the page of followed records being written')
    await this.#applying.catch(() => undefined)
    try {
      await this.#catchUp(attempt)
    } catch (error) {
      if (!attempt.abandoned) this.#stepDown(`the database's log could not be applied after the takeover: ${messageOf(error)}`)
      return
    }
    if (attempt.abandoned) return
    const localLastSeq = this.options.local.lastSeq()
    if (localLastSeq !== owned.nextSeq - 1) {
      this.#stepDown(`after the takeover the local log ends at seq ${localLastSeq}, the database's at ${owned.nextSeq - 1}`)
      return
    }
    this.options.warn(`trueup: cluster: took shard ${this.shard} over at epoch ${owned.epoch}, its log applied to seq ${localLastSeq}; serving it`)
    this.#serve()
  }

  #serve(): void {
    if (this.#lost !== null) return
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

  /** Lost for the rest of the process (memory may hold records the database refused); requests are then forwarded. */
  #stepDown(reason: string): ShardNotOwned {
    if (this.#lost !== null) return this.#lost
    const lost = new ShardNotOwned(this.shard, reason)
    this.#lost = lost
    this.#following = false
    // At once: no renewal is sent after this (the lease lapses unless another node takes the shard first).
    void this.renewer.stop()
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
    await this.renewer.stop()
    await this.#tail?.close()
    this.#tail = null
    await this.#applying.catch(() => undefined)
    await this.log.close()
  }
}
