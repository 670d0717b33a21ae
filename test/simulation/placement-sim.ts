/**
 * @module Simulation of placement and leases: several nodes own, renew, pause, lapse and race for one shard while
 * clients write to it, seeded and deterministic. The database is sim-database.ts (the placement row and the log
 * with pg-log.ts's rules, the lease on the simulation's clock); each node drives the real PgLog (claim, takeover,
 * acquire, placement, read) and OwnedShard (fenced append) of src/cluster/pg-log.ts against it. What a node does
 * around them is modelled here after src/cluster/shard-replica.ts: it steps down when an append is fenced or its
 * renewer finds the shard taken; a node without the shard tries to acquire it
 * (the standby's takeover, which the service does not run yet) and first replays the database's log, so that an
 * Idempotency-Key committed by an earlier owner is answered as a replay, not written twice.
 *
 * An owner's lease is renewed as src/cluster/lease-renewer.ts renews it: by a thread of its own, with its own
 * connection (renewSql every renewIntervalMs, one at a time unless one goes a lease unanswered), which goes on while
 * the node's thread is stalled (a long turn of its event loop: it does nothing and hears nothing) but stops once that
 * thread has shown no progress for mainThreadStallMsMax, and goes on again when it does. A renewal that finds the
 * shard taken is told to the node's thread, which steps down when it next runs; stepping down stops the renewer at
 * once. A process stopped whole (SIGSTOP) renews nothing.
 *
 * Invariants, checked as the database carries statements out (sim-database.ts) and at the end: never two owners
 * of one epoch, and only the newest epoch's owner commits (a paused owner that resumes cannot); the log is one
 * gapless run of seqs from 1; every acknowledged write is in it at the seq it was answered with; no key twice.
 */

import { mainThreadStallMsMax } from '../../src/cluster/lease-renewer.ts'
import { FencedError, PgLog, renewSql, type OwnedShard } from '../../src/cluster/pg-log.ts'
import { leaseMs, renewIntervalMs } from '../../src/cluster/shard-replica.ts'
import { Prng } from './prng.ts'
import { InvariantBroken, SimDatabase, soundRules, type DatabaseRules } from './sim-database.ts'

export interface PlacementOptions {
  readonly seed: number
  readonly steps: number
  readonly nodes?: number
  readonly clients?: number
  readonly rules?: DatabaseRules
  /** The renewer's bound on the node's thread's silence: mainThreadStallMsMax unless given (0: renewals stop with the thread). */
  readonly stallMsMax?: number
}

export interface PlacementReport {
  readonly seed: number
  readonly steps: number
  /** Epochs granted by a claim (1) and by takeovers (2…). */
  readonly claims: number
  readonly takeovers: number
  /** Acquires that found the shard taken by another node's statement between their read and their write. */
  readonly racesLost: number
  /** Appends refused by the fence (the appender's epoch was no longer the row's), and renewals that found the shard taken. */
  readonly fencedAppends: number
  readonly fencedRenewals: number
  readonly pauses: number
  /** Nodes started again under the same node id, their earlier process left stopped (and resumed now and then). */
  readonly restarts: number
  /** Acquires whose shard was taken by another node before their replay of the log ended (paused in between): not served. */
  readonly staleAcquires: number
  /** Pauses that outlasted the paused owner's lease. */
  readonly lapsedWhilePaused: number
  /** Stalls of a node's thread (its renewer thread running on), and renewals its renewer sent during one. */
  readonly stalls: number
  readonly renewalsWhileStalled: number
  /** Times a renewer stopped renewing because its node's thread was silent past the bound. */
  readonly renewalsStoppedByStall: number
  /** Stalls of an owner longer than the lease that it came out of still owning the shard (its renewer's doing). */
  readonly keptThroughLongStall: number
  /** Stalls of an owner that it came out of no longer owning the shard. */
  readonly lostInStall: number
  readonly acknowledged: number
  /** Retries of a write committed while its client was never told (a pause, a step-down, a timeout), answered from the log rather than written again. */
  readonly replayedRetries: number
  readonly logRecords: number
  readonly finalEpoch: number
}

interface Write {
  readonly client: number
  readonly key: string
  readonly amount: number
}

/** A client's answer: acknowledged at this seq, or an error (503, or no answer before its timeout). */
type Answer = { readonly seq: number; readonly replayed: boolean } | null

export class PlacementFailure extends Error {
  constructor(readonly seed: number, readonly step: number, detail: string) {
    super(`placement simulation seed ${seed} failed at step ${step}: ${detail}`)
  }
}

const shard = 0
const readPageRecords = 64
const clientTimeoutMs = 2_000

/** Lets every continuation of a delivered answer run (the real code's promise chains) before the next step. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

function encode(write: Write): Buffer {
  return Buffer.from(JSON.stringify(write))
}

function decode(record: Buffer): Write {
  return JSON.parse(record.toString('utf8')) as Write
}

/** An owner's renewer thread for the epoch it owns (lease-renewer.ts's RenewLoop). */
class SimRenewer {
  sentMs = Number.NEGATIVE_INFINITY
  /** The renewal in flight, until the database's answer is heard. */
  pending: object | null = null
  /** Renewals stopped for want of progress of the node's thread (until it shows some). */
  stalled = false
  /** The stop flag, set by the node's thread as it steps down: read before each renewal is sent. */
  stopped = false
  /** A renewal found the shard taken: told to the node's thread, which steps down when it next runs. */
  lost = false

  constructor(readonly epoch: number) {}
}

/** One process of a node: a restart starts another under the same node id, the earlier one maybe only stopped. */
class SimClusterNode {
  readonly log: PgLog
  /** The renewer thread's own connection, heard while the node's thread stalls. */
  readonly renewerProcess: string
  readonly renewerPool: ReturnType<SimDatabase['poolOf']>
  owned: OwnedShard | null = null
  renewer: SimRenewer | null = null
  renewalsSent = 0
  paused = false
  /** Killed: it does nothing more and hears nothing (what it sent may still be carried out). */
  dead = false
  pausedAtMs = 0
  /** When the node's thread stalled, or null: while it stalls only its renewer thread runs. */
  stalledAtMs: number | null = null
  /** Requests that came while the thread stalled: read once it runs again. */
  readonly inbox: { readonly write: Write; readonly answer: (answer: Answer) => void }[] = []
  acquiring = false
  committing = false
  lastAcquireMs = -Infinity
  /** The database's log as this node replayed it: key → seq. */
  readonly applied = new Map<string, number>()
  appliedSeq = 0
  /** Writes waiting for the next group commit. */
  readonly buffer: Write[] = []
  /**
   * By key, the answers waiting for a write buffered or in the group commit in flight: a retry with the same key
   * waits for the first one's answer, as the ledger finds a key applied and not yet durable.
   */
  readonly waiting = new Map<string, ((answer: Answer) => void)[]>()

  constructor(readonly id: string, readonly process: string, database: SimDatabase) {
    // PgLog's constructor is private to pg-log.ts (PgLog.open connects a real pool): built here over the simulated one.
    this.log = Reflect.construct(PgLog, [database.poolOf(process), id, leaseMs, 'simulated://']) as PgLog
    this.renewerProcess = `${process}/renewer`
    this.renewerPool = database.poolOf(this.renewerProcess)
  }
}

interface Counters {
  claims: number
  takeovers: number
  racesLost: number
  fencedAppends: number
  fencedRenewals: number
  pauses: number
  restarts: number
  staleAcquires: number
  lapsedWhilePaused: number
  stalls: number
  renewalsWhileStalled: number
  renewalsStoppedByStall: number
  keptThroughLongStall: number
  lostInStall: number
  acknowledged: number
  replayedRetries: number
}

export async function simulatePlacement(options: PlacementOptions): Promise<PlacementReport> {
  const run = new PlacementRun(options)
  try {
    return await run.run()
  } catch (error) {
    if (error instanceof PlacementFailure) throw error
    throw new PlacementFailure(options.seed, run.step, error instanceof Error ? (error.stack ?? error.message) : String(error))
  }
}

export interface OwnerStallOptions {
  readonly seed: number
  /** How long the owner stalls (or is stopped), by the database's clock. */
  readonly stallMs: number
  /** The process stopped whole (SIGSTOP) rather than its thread stalled. */
  readonly whole: boolean
  readonly stallMsMax?: number
}

export interface OwnerStallOutcome {
  readonly stalledNode: string
  /** The epoch it owned when it stalled. */
  readonly epoch: number
  /** The placement row as the stall ended. */
  readonly placementAfterStall: { readonly owner: string; readonly epoch: number }
  /** Whether the lease ran out (by the database's clock) at some step of the stall, or was taken over (which needs that). */
  readonly lapsedDuringStall: boolean
  /** Renewals its renewer thread sent during the stall. */
  readonly renewalsWhileStalled: number
  readonly renewalsStoppedByStall: number
  /** Whether it still served the shard at its epoch some seconds after the stall, once its renewer or an append told it. */
  readonly servesAfter: boolean
  /** Writes acknowledged (by any node) after the stall. */
  readonly acknowledgedAfter: number
  /** The whole run, its invariants checked. */
  readonly report: PlacementReport
}

/** Steps the faultless turns may take to reach a scenario's next point (each about 50 ms of the clock). */
const scenarioStepsMax = 20_000
/** How long after the stall the scenario looks at whether the stalled node still serves. */
const afterStallMs = 5_000

/**
 * One owner stalled (or stopped whole) for stallMs while the other nodes and the clients go on, without other faults:
 * whether it keeps its shard. The same invariants are checked as in simulatePlacement.
 */
export async function simulateOwnerStall(options: OwnerStallOptions): Promise<OwnerStallOutcome> {
  // steps bounds only the quiet end here (#quiesce), as after a run of that many.
  const run = new PlacementRun({ seed: options.seed, steps: scenarioStepsMax, stallMsMax: options.stallMsMax })
  try {
    return await run.runOwnerStall(options.stallMs, options.whole)
  } catch (error) {
    if (error instanceof PlacementFailure) throw error
    throw new PlacementFailure(options.seed, run.step, error instanceof Error ? (error.stack ?? error.message) : String(error))
  }
}

class PlacementRun {
  readonly #options: PlacementOptions
  readonly #prng: Prng
  readonly #database: SimDatabase
  /** Each node's current process, by node number; the processes a restart left behind, stopped (zombies). */
  readonly #nodes: SimClusterNode[]
  readonly #zombies: SimClusterNode[] = []
  /** Each client's write in flight (one at a time, retried with its key until answered), and when it was last sent. */
  readonly #pending: ({ write: Write; sentAtMs: number; waiting: boolean } | null)[]
  readonly #acknowledged = new Map<string, number>()
  readonly #counters: Counters = { claims: 0, takeovers: 0, racesLost: 0, fencedAppends: 0, fencedRenewals: 0, pauses: 0, restarts: 0, staleAcquires: 0, lapsedWhilePaused: 0,
    stalls: 0, renewalsWhileStalled: 0, renewalsStoppedByStall: 0, keptThroughLongStall: 0, lostInStall: 0, acknowledged: 0, replayedRetries: 0 }
  #writesIssued = 0
  /** The first error of a node's work in flight (its promise is not awaited by the step that started it). */
  #asyncError: unknown = null
  /** The node whose stall or pause a scenario ends itself (runOwnerStall): the drawn resumes leave it be. */
  #held: SimClusterNode | null = null
  readonly #stallMsMax: number
  step = 0

  constructor(options: PlacementOptions) {
    this.#options = options
    this.#prng = new Prng(options.seed)
    this.#stallMsMax = options.stallMsMax ?? mainThreadStallMsMax
    this.#database = new SimDatabase(shard, options.rules ?? soundRules)
    this.#nodes = Array.from({ length: options.nodes ?? 3 }, (_, index) => new SimClusterNode(`node${index}`, `node${index}.0`, this.#database))
    this.#pending = Array.from({ length: options.clients ?? 6 }, () => null)
  }

  async run(): Promise<PlacementReport> {
    while (this.step < this.#options.steps) {
      await this.#turn(true)
      this.step++
    }
    await this.#quiesce()
    this.#checkLog()
    return this.#report()
  }

  async runOwnerStall(stallMs: number, whole: boolean): Promise<OwnerStallOutcome> {
    const owner = () => this.#nodes.find((node) => node.owned !== null && node.stalledAtMs === null && !node.paused)
    await this.#until(() => owner() !== undefined && this.#counters.acknowledged > 0, 'an owner with a write acknowledged')
    const node = owner()!
    const epoch = node.owned!.epoch
    const [sentBefore, stoppedBefore] = [node.renewalsSent, this.#counters.renewalsStoppedByStall]
    this.#held = node
    if (whole) this.#pause(node)
    else this.#stall(node)
    const endMs = this.#database.nowMs + stallMs
    let lapsedDuringStall = false
    await this.#until(() => {
      lapsedDuringStall ||= this.#database.lapsed || this.#database.placement?.epoch !== epoch
      return this.#database.nowMs >= endMs
    }, 'the end of the stall')
    const row = this.#database.placement!
    const placementAfterStall = { owner: row.owner, epoch: row.epoch }
    const outcome = { renewalsWhileStalled: node.renewalsSent - sentBefore, renewalsStoppedByStall: this.#counters.renewalsStoppedByStall - stoppedBefore }
    if (whole) this.#resume(node, true)
    else this.#unstall(node, true)
    const acknowledgedBefore = this.#counters.acknowledged
    await this.#until(() => this.#database.nowMs >= endMs + afterStallMs, 'a while after the stall')
    const servesAfter = node.owned?.epoch === epoch
    await this.#quiesce()
    this.#checkLog()
    return { stalledNode: node.id, epoch, placementAfterStall, lapsedDuringStall, ...outcome, servesAfter, acknowledgedAfter: this.#counters.acknowledged - acknowledgedBefore, report: this.#report() }
  }

  /** Faultless turns until the condition holds (bounded). */
  async #until(condition: () => boolean, what: string): Promise<void> {
    for (let steps = 0; !condition(); steps++) {
      if (steps >= scenarioStepsMax) throw new PlacementFailure(this.#options.seed, this.step, `${what} not reached within ${scenarioStepsMax} steps`)
      await this.#turn(false)
      this.step++
    }
  }

  /** One step: the clock moves, then one thing happens, drawn by the seed. */
  async #turn(faults: boolean): Promise<void> {
    const database = this.#database
    database.nowMs += this.#prng.int(0, 100)
    // Each renewer thread's timer fires on time (every 100 ms; a step is 50 on average): its thread is not the node's.
    for (const node of this.#running()) if (!node.paused) this.#renewerTurn(node)
    // A stalled thread hears nothing; its renewer thread, on its own connection, does (a stopped process neither).
    const mayHear = (process: string) => this.#running().some((node) => !node.paused
      && ((node.process === process && node.stalledAtMs === null) || node.renewerProcess === process))
    const action = this.#prng.weighted({
      execute: 6, deliver: 6, node: 4, client: 5, pause: faults ? 0.15 : 0, resume: 0.4, restart: faults ? 0.06 : 0, stall: faults ? 0.15 : 0, unstall: 0.4,
    })
    try {
      if (action === 'execute' && database.unexecuted > 0) database.execute(this.#prng.int(0, database.unexecuted - 1))
      else if (action === 'deliver' && database.deliverable(mayHear) > 0) database.deliver(this.#prng.int(0, database.deliverable(mayHear) - 1), mayHear)
      else if (action === 'node') this.#nodeTurn(this.#prng.pick(this.#running()))
      else if (action === 'client') this.#clientTurn(this.#prng.int(0, this.#pending.length - 1))
      else if (action === 'pause') this.#pause(this.#prng.pick(this.#running()))
      else if (action === 'resume') this.#resume(this.#prng.pick(this.#running()), false)
      else if (action === 'stall') this.#stall(this.#prng.pick(this.#running()))
      else if (action === 'unstall') this.#unstall(this.#prng.pick(this.#running()), false)
      else if (action === 'restart') this.#restart(this.#prng.int(0, this.#nodes.length - 1))
    } catch (error) {
      if (error instanceof InvariantBroken) throw new PlacementFailure(this.#options.seed, this.step, error.message)
      throw error
    }
    await settle()
    if (this.#asyncError !== null) {
      const error = this.#asyncError
      throw new PlacementFailure(this.#options.seed, this.step, error instanceof Error ? error.message : String(error))
    }
  }

  /** A node's work started now and carried on by the answers it hears. */
  #spawn(work: Promise<void>): void {
    work.catch((error: unknown) => { this.#asyncError ??= error })
  }

  /** Every process not killed: the nodes' current ones and the zombies. */
  #running(): SimClusterNode[] {
    return [...this.#nodes, ...this.#zombies.filter((zombie) => !zombie.dead)]
  }

  /**
   * A node started again while its process is only stopped (a supervisor that gave up on it): the new process has
   * the same node id and nothing in memory; the old one stays, stopped, and may be resumed later with the shard it
   * held, its buffered writes and its statements in flight. Its epoch, not its node id, is what must fence it.
   */
  #restart(index: number): void {
    const old = this.#nodes[index]
    this.#pause(old)
    this.#zombies.push(old)
    this.#nodes[index] = new SimClusterNode(old.id, `${old.id}.${++this.#counters.restarts}`, this.#database)
  }

  /** A SIGSTOP: the node does nothing and hears nothing; what it sent may still be carried out by the database. */
  #pause(node: SimClusterNode): void {
    if (node.paused) return
    node.paused = true
    node.pausedAtMs = this.#database.nowMs
    this.#counters.pauses++
  }

  /** `scenario`: the scenario ends the held node's pause; a drawn resume does not. */
  #resume(node: SimClusterNode, scenario: boolean): void {
    if (!node.paused || (node === this.#held && !scenario)) return
    node.paused = false
    if (node.owned !== null && this.#database.nowMs - node.pausedAtMs > leaseMs) this.#counters.lapsedWhilePaused++
  }

  /** A long turn of the node's event loop: its thread does nothing and hears nothing; its renewer thread runs on. */
  #stall(node: SimClusterNode): void {
    if (node.paused || node.stalledAtMs !== null) return
    node.stalledAtMs = this.#database.nowMs
    this.#counters.stalls++
  }

  #unstall(node: SimClusterNode, scenario: boolean): void {
    // A stopped process's thread cannot come out of its stall before it runs again.
    if (node.stalledAtMs === null || node.paused || (node === this.#held && !scenario)) return
    const stalledMs = this.#database.nowMs - node.stalledAtMs
    node.stalledAtMs = null
    if (node.owned !== null) {
      const row = this.#database.placement
      if (row === null || row.owner !== node.id || row.epoch !== node.owned.epoch) this.#counters.lostInStall++
      else if (stalledMs > leaseMs) this.#counters.keptThroughLongStall++
    }
    for (const { write, answer } of node.inbox.splice(0, node.inbox.length)) this.#send(node, write, answer)
  }

  /**
   * What a running node's thread does on its own, unless stalled: step down when its renewer found the lease lost,
   * commit what its clients sent, or try to take the shard.
   */
  #nodeTurn(node: SimClusterNode): void {
    if (node.paused || node.stalledAtMs !== null) return
    const nowMs = this.#database.nowMs
    if (node.owned !== null) {
      if (node.renewer?.lost === true) {
        this.#counters.fencedRenewals++
        this.#stepDown(node)
      } else if (!node.committing && node.buffer.length > 0) this.#spawn(this.#groupCommit(node, node.owned))
      return
    }
    if (!node.acquiring && nowMs - node.lastAcquireMs >= renewIntervalMs) this.#spawn(this.#acquire(node))
  }

  /**
   * The renewer thread's timer (RenewLoop's tick): nothing once stopped or lost, nor while the node's thread has been
   * silent past the bound; else a renewal when one is due and none is in flight (or it went a lease unanswered).
   */
  #renewerTurn(node: SimClusterNode): void {
    const renewer = node.renewer
    if (renewer === null || renewer.stopped || renewer.lost) return
    const nowMs = this.#database.nowMs
    const quietMs = node.stalledAtMs === null ? 0 : nowMs - node.stalledAtMs
    if (quietMs > this.#stallMsMax) {
      if (!renewer.stalled) this.#counters.renewalsStoppedByStall++
      renewer.stalled = true
      return
    }
    renewer.stalled = false
    if (nowMs - renewer.sentMs < renewIntervalMs || (renewer.pending !== null && nowMs - renewer.sentMs < leaseMs)) return
    node.renewalsSent++
    if (node.stalledAtMs !== null) this.#counters.renewalsWhileStalled++
    this.#spawn(this.#renew(node, renewer))
  }

  async #renew(node: SimClusterNode, renewer: SimRenewer): Promise<void> {
    const renewal = {}
    renewer.sentMs = this.#database.nowMs
    renewer.pending = renewal
    try {
      const result = await node.renewerPool.query(renewSql, [shard, node.id, renewer.epoch, leaseMs])
      if (result.rowCount === 0 && !renewer.stopped) renewer.lost = true
    } finally {
      if (renewer.pending === renewal) renewer.pending = null
    }
  }

  /** A standby's takeover: acquire (claim, or take over a lapsed lease), then replay the database's log up to its end. */
  async #acquire(node: SimClusterNode): Promise<void> {
    node.acquiring = true
    node.lastAcquireMs = this.#database.nowMs
    try {
      const seen = await node.log.placement(shard)
      const owned = await node.log.acquire(shard)
      if (owned === null) {
        const after = await node.log.placement(shard)
        // The shard was free or lapsed when looked at, and someone else's statement got there first.
        if ((seen === null || seen.lapsed) && after !== null && after.owner !== node.id) this.#counters.racesLost++
        return
      }
      this.#counters[owned.epoch === 1 ? 'claims' : 'takeovers']++
      await this.#catchUp(node)
      // As ShardReplica.open: a database log that does not end where this node's replay does is not served. The
      // next seq was read after the grant, so it differs only when another node took the shard and wrote since
      // (this node paused in between): the lease is left to lapse, and an append of this epoch would be fenced.
      if (owned.nextSeq !== node.appliedSeq + 1) return void this.#counters.staleAcquires++
      node.owned = owned
      // Renewed from now on by its renewer thread.
      node.renewer = new SimRenewer(owned.epoch)
    } finally {
      node.acquiring = false
    }
  }

  async #catchUp(node: SimClusterNode): Promise<void> {
    for (;;) {
      const page = await node.log.read(shard, node.appliedSeq, readPageRecords)
      for (const row of page) {
        if (row.seq !== node.appliedSeq + 1) throw new InvariantBroken(`${node.id} read seq ${row.seq} after ${node.appliedSeq}: the log has a gap`)
        node.applied.set(decode(row.record).key, row.seq)
        node.appliedSeq = row.seq
      }
      if (page.length < readPageRecords) return
    }
  }

  /** One group commit: the buffered writes appended as one fenced transaction, answered once committed; fenced: 503 and step down. */
  async #groupCommit(node: SimClusterNode, owned: OwnedShard): Promise<void> {
    node.committing = true
    const batch = node.buffer.splice(0, node.buffer.length)
    try {
      const { firstSeq } = await owned.append(batch.map(encode))
      batch.forEach((write, index) => {
        node.applied.set(write.key, firstSeq + index)
        node.appliedSeq = firstSeq + index
        this.#answerWaiting(node, write.key, { seq: firstSeq + index, replayed: false })
      })
    } catch (error) {
      if (!(error instanceof FencedError)) throw error
      this.#counters.fencedAppends++
      for (const write of batch) this.#answerWaiting(node, write.key, null)
      if (node.owned === owned) this.#stepDown(node)
    } finally {
      node.committing = false
    }
  }

  /** The shard lost: its waiting writes answer 503, its replay of the log is kept (the next acquire reads on from it). */
  #stepDown(node: SimClusterNode): void {
    node.owned = null
    // At once: no renewal is sent after this.
    if (node.renewer !== null) node.renewer.stopped = true
    node.renewer = null
    for (const write of node.buffer.splice(0, node.buffer.length)) this.#answerWaiting(node, write.key, null)
  }

  #answerWaiting(node: SimClusterNode, key: string, answer: Answer): void {
    const waiting = node.waiting.get(key) ?? []
    node.waiting.delete(key)
    for (const each of waiting) each(answer)
  }

  /** A client sends its write (a new one, or the one it was never answered, with the same key) to a node drawn at random. */
  #clientTurn(client: number): void {
    const nowMs = this.#database.nowMs
    let pending = this.#pending[client]
    if (pending !== null && pending.waiting && nowMs - pending.sentAtMs < clientTimeoutMs) return
    if (pending === null) {
      const write = { client, key: `c${client}-${++this.#writesIssued}`, amount: this.#prng.int(1, 1_000) }
      pending = { write, sentAtMs: nowMs, waiting: false }
      this.#pending[client] = pending
    }
    const node = this.#prng.pick(this.#nodes)
    const sent = pending
    sent.sentAtMs = nowMs
    sent.waiting = true
    // A paused node answers nothing: the client's timeout ends the wait. A stalled one reads the request once it runs again.
    if (node.paused) return
    const answer = (answered: Answer) => this.#answered(client, sent, answered)
    if (node.stalledAtMs !== null) return void node.inbox.push({ write: sent.write, answer })
    this.#send(node, sent.write, answer)
  }

  #send(node: SimClusterNode, write: Write, answer: (answer: Answer) => void): void {
    if (node.owned === null) return answer(null)
    const seq = node.applied.get(write.key)
    if (seq !== undefined) return answer({ seq, replayed: true })
    const waiting = node.waiting.get(write.key)
    if (waiting !== undefined) return void waiting.push(answer)
    node.waiting.set(write.key, [answer])
    node.buffer.push(write)
  }

  #answered(client: number, sent: { write: Write; waiting: boolean }, answer: Answer): void {
    if (this.#pending[client] !== sent) return
    sent.waiting = false
    if (answer === null) return
    const earlier = this.#acknowledged.get(sent.write.key)
    if (earlier !== undefined && earlier !== answer.seq) throw new InvariantBroken(`key ${sent.write.key} answered at seq ${answer.seq}, earlier at ${earlier}: written twice`)
    this.#acknowledged.set(sent.write.key, answer.seq)
    this.#counters.acknowledged++
    if (answer.replayed) this.#counters.replayedRetries++
    this.#pending[client] = null
  }

  /** The faults stop, paused nodes resume, and the run goes on until every client's write is answered (bounded). */
  async #quiesce(): Promise<void> {
    // The zombies are killed at last: one resumed and renewing its lease would hold the shard from its node's new process.
    for (const zombie of this.#zombies) zombie.dead = true
    this.#held = null
    const resumeAll = () => this.#nodes.forEach((node) => { this.#resume(node, false); this.#unstall(node, false) })
    resumeAll()
    const stepsMax = 20 * this.#options.steps + 10_000
    for (let extra = 0; extra < stepsMax; extra++) {
      if (this.#pending.every((pending) => pending === null) && this.#database.unexecuted === 0) return
      await this.#turn(false)
      resumeAll()
    }
    throw new PlacementFailure(this.#options.seed, this.step, `after the faults stopped, writes were still unanswered: ${JSON.stringify(this.#pending)}`)
  }

  /** The log: one gapless run of seqs, no key twice, every acknowledged write at the seq it was answered with. */
  #checkLog(): void {
    const fail = (detail: string) => new PlacementFailure(this.#options.seed, this.step, detail)
    const seen = new Map<string, number>()
    this.#database.log.forEach((row, index) => {
      if (row.seq !== index + 1) throw fail(`the log's ${index + 1}th record has seq ${row.seq}: not one gapless run`)
      const { key } = decode(row.record)
      const twice = seen.get(key)
      if (twice !== undefined) throw fail(`key ${key} is in the log twice (seqs ${twice} and ${row.seq}): a write doubled`)
      seen.set(key, row.seq)
    })
    for (const [key, seq] of this.#acknowledged) {
      if (seen.get(key) !== seq) throw fail(`key ${key} was acknowledged at seq ${seq}; the log has it at ${seen.get(key) ?? 'no seq'}: an acknowledged write lost`)
    }
  }

  #report(): PlacementReport {
    return { seed: this.#options.seed, steps: this.step, ...this.#counters, logRecords: this.#database.log.length, finalEpoch: this.#database.placement?.epoch ?? 0 }
  }
}
