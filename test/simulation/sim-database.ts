/**
 * @module Simulation of the cluster's database: the placement row and the log table of src/cluster/pg-log.ts with
 * the rules its SQL states, behind a fake `pg` pool per node, so that the real PgLog and OwnedShard run against it.
 * Each statement pg-log.ts sends is recognised by its text and carried out whole at one moment (each is one
 * transaction there, and the placement row's lock orders an append and a takeover: either is wholly before the
 * other). The lease is measured by the simulation's clock, as the database's clock_timestamp() measures it.
 *
 * A statement goes through three stages the simulation schedules one at a time, by its seed: sent (the node's
 * query is on the wire), executed (the database did it; a paused node's statement sent before the pause can still
 * be executed), delivered (the node hears the answer; never while it is paused). Any statement of another text
 * throws: a change to pg-log.ts's SQL must be modelled here before the simulation can pass.
 *
 * The checks of the invariants (check* below) do not use the rules: they watch what the rules let through.
 */

import { splitGroup, type GroupRow } from '../../src/cluster/log-group.ts'

export interface Row {
  readonly seq: number
  readonly epoch: number
  readonly record: Buffer
  /** Which node's append wrote it (the owner it names; not a column: for the checks). */
  readonly node: string
}

interface PlacementRow {
  owner: string
  epoch: number
  leaseUntilMs: number
}

interface QueryResult {
  readonly rows: Record<string, unknown>[]
  readonly rowCount: number
}

/** A statement in flight: sent by a node's process, maybe executed, not yet delivered. */
interface Statement {
  /** The process that sent it (a node restarted runs a new one under the same node id). */
  readonly process: string
  readonly sql: string
  readonly params: readonly unknown[]
  result: { readonly ok: QueryResult } | { readonly error: Error } | null
  readonly resolve: (result: QueryResult) => void
  readonly reject: (error: Error) => void
}

/** The rules of the SQL, one switch each, so that a test can break one on purpose and see the checks catch it. */
export interface DatabaseRules {
  /** The append inserts only while the placement row has the appender's epoch (and owner). */
  appendChecksEpoch: boolean
  /** A takeover bumps the epoch by one (else the new owner gets the epoch it saw). */
  takeoverBumpsEpoch: boolean
}

export const soundRules: DatabaseRules = { appendChecksEpoch: true, takeoverBumpsEpoch: true }

/** A violation of an invariant, seen as the database carried a statement out. */
export class InvariantBroken extends Error {}

export class SimDatabase {
  nowMs = 0
  readonly rules: DatabaseRules
  #placement: PlacementRow | null = null
  /** The log's records, one by one (what the checks watch). */
  readonly log: Row[] = []
  /** The table's rows: one per group commit, keyed by its last seq (the primary key). */
  readonly #groups: GroupRow[] = []
  readonly #groupSeqs = new Set<number>()
  readonly #inFlight: Statement[] = []
  /** Who was granted each epoch (a claim or a takeover): an epoch is granted once, to one node. */
  readonly grants = new Map<number, string>()
  /** The highest epoch granted so far. */
  #epochGranted = 0

  constructor(readonly shard: number, rules: DatabaseRules = soundRules) {
    this.rules = rules
  }

  /** The `pg` pool a node's process's PgLog holds: its queries join the statements in flight. */
  poolOf(process: string): { query(statement: string | { readonly text: string }, params: readonly unknown[]): Promise<QueryResult>; end(): Promise<void> } {
    return {
      // A named statement (prepared once per connection by PostgreSQL) runs as its text does.
      query: (statement, params) => new Promise((resolve, reject) => void this.#inFlight.push({
        process, sql: typeof statement === 'string' ? statement : statement.text, params, result: null, resolve, reject })),
      end: async () => undefined,
    }
  }

  /** Statements the database has not carried out yet (any node's, a paused one's included). */
  get unexecuted(): number {
    return this.#inFlight.filter((statement) => statement.result === null).length
  }

  /** Carries out the index-th statement not yet executed; its answer waits for delivery. */
  execute(index: number): void {
    const statement = this.#inFlight.filter((each) => each.result === null)[index]
    try {
      statement.result = { ok: this.#run(statement.sql, statement.params) }
    } catch (error) {
      if (error instanceof InvariantBroken) throw error
      statement.result = { error: error as Error }
    }
  }

  /** Executed statements whose node may hear them now. */
  deliverable(mayHear: (process: string) => boolean): number {
    return this.#inFlight.filter((statement) => statement.result !== null && mayHear(statement.process)).length
  }

  /** Delivers the index-th deliverable answer to its node. */
  deliver(index: number, mayHear: (process: string) => boolean): void {
    const statement = this.#inFlight.filter((each) => each.result !== null && mayHear(each.process))[index]
    this.#inFlight.splice(this.#inFlight.indexOf(statement), 1)
    const result = statement.result!
    if ('ok' in result) statement.resolve(result.ok)
    else statement.reject(result.error)
  }

  #run(sql: string, params: readonly unknown[]): QueryResult {
    if (sql.includes('WITH fence AS')) return this.#append(params)
    if (sql.includes('INSERT INTO placement')) return this.#claim(params)
    if (sql.includes('UPDATE placement SET owner')) return this.#takeover(params)
    if (sql.includes('UPDATE placement SET lease_until')) return this.#renew(params)
    if (sql.includes('SELECT owner, epoch')) return this.#placementRow()
    if (sql.includes('coalesce(max(seq), 0)')) return { rows: [{ last: String(this.log.length === 0 ? 0 : this.log[this.log.length - 1].seq) }], rowCount: 1 }
    if (sql.includes('SELECT seq, count FROM log WHERE shard = $1 AND seq > $2')) return this.#read(params)
    throw new Error(`the simulated database does not know this statement: ${sql.slice(0, 80)}`)
  }

  /**
   * WITH fence AS (SELECT … WHERE epoch = $2 AND owner = $3 FOR UPDATE) INSERT one row (seq $4, the group's last; count
   * $5; the records framed, $6) … WHERE EXISTS fence; primary key (shard, seq).
   */
  #append([, epoch, owner, lastSeq, count, framed]: readonly unknown[]): QueryResult {
    const row = this.#placement
    const fenced = row !== null && row.owner === owner && (!this.rules.appendChecksEpoch || row.epoch === epoch)
    if (!fenced) return { rows: [{ fenced_in: 0, written: 0, notified: 0 }], rowCount: 1 }
    // A duplicate key fails the whole statement: nothing of it is written.
    if (this.#groupSeqs.has(lastSeq as number)) throw new Error(`duplicate key value violates unique constraint "log_pkey": (shard, seq)=(${this.shard}, ${lastSeq})`)
    this.#checkCommit(owner as string, epoch as number)
    const records = splitGroup(framed as Buffer, count as number)
    const firstSeq = (lastSeq as number) - records.length + 1
    records.forEach((record, index) => this.log.push({ seq: firstSeq + index, epoch: epoch as number, record, node: owner as string }))
    this.#groups.push({ seq: String(lastSeq), epoch: String(epoch), count: count as number, record: framed as Buffer })
    this.#groupSeqs.add(lastSeq as number)
    return { rows: [{ fenced_in: 1, written: 1, notified: 1 }], rowCount: 1 }
  }

  /** INSERT … epoch 1 … ON CONFLICT (shard) DO NOTHING RETURNING epoch. */
  #claim([, node, leaseMs]: readonly unknown[]): QueryResult {
    if (this.#placement !== null) return { rows: [], rowCount: 0 }
    this.#placement = { owner: node as string, epoch: 1, leaseUntilMs: this.nowMs + (leaseMs as number) }
    this.#checkGrant(1, node as string)
    return { rows: [{ epoch: '1' }], rowCount: 1 }
  }

  /** UPDATE … SET owner, epoch = epoch + 1, lease … WHERE epoch = $3 AND lease_until < clock_timestamp() RETURNING epoch. */
  #takeover([node, , seen, leaseMs]: readonly unknown[]): QueryResult {
    const row = this.#placement
    if (row === null || row.epoch !== seen || !(row.leaseUntilMs < this.nowMs)) return { rows: [], rowCount: 0 }
    row.owner = node as string
    row.epoch = this.rules.takeoverBumpsEpoch ? row.epoch + 1 : (seen as number)
    row.leaseUntilMs = this.nowMs + (leaseMs as number)
    this.#checkGrant(row.epoch, row.owner)
    return { rows: [{ epoch: String(row.epoch) }], rowCount: 1 }
  }

  /** UPDATE placement SET lease_until = … WHERE shard AND owner AND epoch. */
  #renew([, node, epoch, leaseMs]: readonly unknown[]): QueryResult {
    const row = this.#placement
    if (row === null || row.owner !== node || row.epoch !== epoch) return { rows: [], rowCount: 0 }
    row.leaseUntilMs = this.nowMs + (leaseMs as number)
    return { rows: [], rowCount: 1 }
  }

  #placementRow(): QueryResult {
    const row = this.#placement
    if (row === null) return { rows: [], rowCount: 0 }
    return { rows: [{ owner: row.owner, epoch: String(row.epoch), lapsed: row.leaseUntilMs < this.nowMs }], rowCount: 1 }
  }

  /** The rows holding records after $2, as few as hold $3 of them (the records at or below $2 not counted). */
  #read([, afterSeq, limit]: readonly unknown[]): QueryResult {
    const rows: GroupRow[] = []
    let before = 0
    for (const group of this.#groups) {
      const seq = Number(group.seq)
      if (seq <= (afterSeq as number)) continue
      if (before >= (limit as number) || rows.length >= (limit as number)) break
      rows.push(group)
      before += Math.min(group.count, seq - (afterSeq as number))
    }
    return { rows: rows.map((row) => ({ ...row })), rowCount: rows.length }
  }

  /** Whether the lease of the current owner has run out by the database's clock. */
  get lapsed(): boolean {
    return this.#placement !== null && this.#placement.leaseUntilMs < this.nowMs
  }

  get placement(): Readonly<PlacementRow> | null {
    return this.#placement
  }

  /** Never two owners of one epoch, and epochs only go up. */
  #checkGrant(epoch: number, node: string): void {
    const earlier = this.grants.get(epoch)
    if (earlier !== undefined) throw new InvariantBroken(`epoch ${epoch} was granted to ${earlier} and again to ${node}: two owners able to commit in the same epoch`)
    if (epoch <= this.#epochGranted) throw new InvariantBroken(`epoch ${epoch} granted to ${node} after epoch ${this.#epochGranted}: epochs must only go up`)
    this.grants.set(epoch, node)
    this.#epochGranted = epoch
  }

  /**
   * Only the owner of the newest epoch commits: an owner that was paused while another took the shard writes nothing,
   * nor does a node's earlier process once the node, restarted, took the shard over under the same node id.
   */
  #checkCommit(node: string, epoch: number): void {
    if (epoch !== this.#epochGranted || this.grants.get(epoch) !== node) {
      throw new InvariantBroken(`${node} committed at epoch ${epoch}, while epoch ${this.#epochGranted} is ${this.grants.get(this.#epochGranted)}'s: an owner that lost the shard committed`)
    }
  }
}
