/**
 * @module The replicated log in PostgreSQL: per shard, an ordered log of records and one placement row saying which
 * node owns the shard, under which epoch, until when (its lease).
 *
 *   log(shard, seq, epoch, record bytea, count)  primary key (shard, seq); one row per group commit (log-group.ts)
 *   placement(shard, owner, epoch, lease_until)
 *
 * Fencing: every append checks, in its own transaction, that the placement row still carries the appender's epoch,
 * and holds that row locked (FOR UPDATE) until it commits. A takeover bumps the epoch with an UPDATE on the same row,
 * so it either waits for an append in flight to commit (and then reads a tail that includes it) or commits first,
 * after which the old owner's append finds another epoch and writes nothing. A paused or partitioned old owner can
 * therefore never add a record once another node has taken the shard, whatever the clocks say. Leases are measured
 * by the database's clock alone (clock_timestamp()), so the nodes' clocks need not agree.
 *
 * The shard's group commit calls OwnedShard.append(records) once per batch: one statement, one transaction, one
 * round trip, one row; it resolves once PostgreSQL has committed (with synchronous replication, once a standby holds
 * it too). Standbys follow a shard with PgTail: LISTEN wakes them, then they read `seq > applied`, the rows split
 * into their records.
 */

import { frameGroup, recordsOfRows, type GroupRow, type LogRecord } from './log-group.js'
import { PrimaryPool, type NamedStatement } from './pg-connect.js'

export type { LogRecord } from './log-group.js'

/** The tables, created once by whichever node comes first (under an advisory lock, so two first nodes do not race). */
const schemaSql = `
CREATE TABLE IF NOT EXISTS placement (
  shard integer PRIMARY KEY,
  owner text NOT NULL,
  epoch bigint NOT NULL,
  lease_until timestamptz NOT NULL
);
CREATE TABLE IF NOT EXISTS log (
  shard integer NOT NULL,
  seq bigint NOT NULL,
  epoch bigint NOT NULL,
  record bytea NOT NULL,
  PRIMARY KEY (shard, seq)
);
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'log'::regclass AND attname = 'count' AND NOT attisdropped) THEN
    ALTER TABLE log ADD COLUMN IF NOT EXISTS count integer NOT NULL DEFAULT 1;
  END IF;
END $$;`

/**
 * The advisory lock key under which the schema is created (any constant: it only keeps creators apart). The count
 * column came with one row per group commit: a log written before has one row per record, which its default (1)
 * reads as groups of one; adding a column with a constant default rewrites no row. The ALTER runs only when the
 * column is missing: it takes the table's exclusive lock, which would wait behind any transaction writing the log
 * (a stopped owner's, for as long as it is stopped) and hold up every read and append queued behind it.
 */
const schemaLockKey = 7_264_110_526

/**
 * One group commit, one row: inserted only while the placement row, locked, still has the appender's epoch and
 * owner; the standbys notified in the same transaction (a NOTIFY is delivered at commit, never for a rollback).
 * Parameters: shard, epoch, node, the group's last seq, its count, its records framed (log-group.ts) as one bytea,
 * which node-postgres sends in binary (a Buffer parameter), where an array of records went as hex text to be parsed.
 */
const appendSql: NamedStatement = { name: 'trueup_log_append', text: `
WITH fence AS (
  SELECT shard FROM placement WHERE shard = $1 AND epoch = $2 AND owner = $3 FOR UPDATE
), written AS (
  INSERT INTO log (shard, seq, epoch, count, record)
  SELECT $1, $4::bigint, $2, $5::integer, $6::bytea
  WHERE EXISTS (SELECT 1 FROM fence)
  RETURNING seq
), notified AS (
  SELECT pg_notify('trueup_log_' || $1::text, seq::text) FROM written
)
SELECT (SELECT count(*) FROM fence)::int AS fenced_in, (SELECT count(*) FROM written)::int AS written, (SELECT count(*) FROM notified)::int AS notified` }

/**
 * A renewal: the lease extended by the database's clock, only while the row still holds this node and epoch (so
 * never after another node took the shard). Parameters: shard, node, epoch, lease in ms. The owner's renewals run
 * on a thread of their own (src/cluster/lease-renewer.ts); OwnedShard.renew runs the same statement.
 */
export const renewSql: NamedStatement = { name: 'trueup_lease_renew', text: `UPDATE placement SET lease_until = clock_timestamp() + $4 * interval '1 millisecond'
       WHERE shard = $1 AND owner = $2 AND epoch = $3` }

/**
 * A local log written into a shard whose log in the database is empty (a single node's data dir joining a cluster):
 * the placement row held FOR UPDATE under the importer's epoch, then each page inserted as one group row (log-group.ts)
 * at its own seqs, all in one transaction (OwnedShard.importLog).
 */
const importFenceSql = `SELECT (SELECT count(*) FROM placement WHERE shard = $1 AND epoch = $2 AND owner = $3)::int AS fenced_in,
  (SELECT count(*) FROM log WHERE shard = $1)::int AS rows`
const importLockSql = 'SELECT shard FROM placement WHERE shard = $1 AND epoch = $2 AND owner = $3 FOR UPDATE'
const importPageSql = 'INSERT INTO log (shard, seq, epoch, count, record) VALUES ($1, $3::bigint, $2, $4::integer, $5::bytea)'

/**
 * A standby's read of what follows a seq (a page of the tail, or of a catch-up): the rows holding records after $2,
 * as few as hold $3 of them (each row holds one or more, so $3 rows are the most needed; a row is kept while the
 * records after $2 in the rows before it are fewer than $3). The first row's records at or below $2 are not counted.
 * The rows are chosen on (seq, count) alone and only those kept are fetched whole, so a page of a catch-up over
 * large groups does not carry $3 rows' records through the count. The page is cut to $3 records when split.
 */
const readSql: NamedStatement = { name: 'trueup_log_read', text: `
SELECT log.seq, log.epoch, log.count, log.record FROM (
  SELECT seq, sum(least(count, seq - $2::bigint)) OVER (ORDER BY seq) - least(count, seq - $2::bigint) AS before
  FROM (SELECT seq, count FROM log WHERE shard = $1 AND seq > $2::bigint ORDER BY seq LIMIT $3::bigint) AS page
) AS counted JOIN log ON log.shard = $1 AND log.seq = counted.seq
WHERE counted.before < $3::bigint ORDER BY log.seq` }

/** The channel a shard's appends are announced on (payload: the last seq committed). */
export function channelOf(shard: number): string {
  return `trueup_log_${shard}`
}

/** An append refused because the shard is no longer this owner's at this epoch: nothing was written. */
export class FencedError extends Error {
  constructor(readonly shard: number, readonly epoch: number) {
    super(`shard ${shard}: epoch ${epoch} is no longer the owner's; the append was refused and nothing was written`)
    this.name = 'FencedError'
  }
}

export interface Placement {
  readonly shard: number
  readonly owner: string
  readonly epoch: number
  /** Whether the lease has run out by the database's clock. */
  readonly lapsed: boolean
}

export interface PgLogOptions {
  /** postgres://… (CLUSTER_DATABASE_URL). */
  readonly url: string
  /** This node's id (NODE_ID): the owner written in placement. */
  readonly node: string
  /** How long a claim or a renewal holds the shard, in the database's clock. */
  readonly leaseMs: number
  /** Connections in the pool (appends of different shards, renewals, reads). */
  readonly poolSize?: number
  /** How long a query waits for a primary to be found after a failover (src/cluster/pg-connect.ts's default otherwise). */
  readonly findWindowMs?: number
}

/** A shard this node owns at one epoch; appends through it are fenced by that epoch. */
export class OwnedShard {
  /** The seq the next record gets (one past the last in the log when the shard was taken, then counted here). */
  #nextSeq: number
  #lost = false
  /** Appends one after the other, so seqs are given in call order even when a caller does not wait. */
  #queue: Promise<unknown> = Promise.resolve()

  constructor(private readonly log: PgLog, readonly shard: number, readonly epoch: number, nextSeq: number) {
    this.#nextSeq = nextSeq
  }

  get nextSeq(): number { return this.#nextSeq }

  /**
   * Records that an append whose answer was lost (src/cluster/append-outcome.ts) is in the database after all, as read
   * back: the next seq moves past it. Only for the append at the current next seq.
   */
  confirm(firstSeq: number, count: number): void {
    if (firstSeq !== this.#nextSeq) throw new Error(`shard ${this.shard}: confirming seq ${firstSeq}, but the next seq is ${this.#nextSeq}`)
    this.#nextSeq = firstSeq + count
  }
  /** True once an append was fenced or a renewal found the shard taken: this object appends nothing more. */
  get lost(): boolean { return this.#lost }

  /**
   * Appends the records as one transaction; resolves with their seqs once committed. Rejects with FencedError (and
   * writes nothing) when another node took the shard; any other error leaves the outcome unknown to the caller,
   * which must then stop answering from this shard (as a failed local log does).
   */
  append(records: readonly Uint8Array[]): Promise<{ readonly firstSeq: number; readonly lastSeq: number }> {
    const run = this.#queue.then(() => this.#appendNow(records))
    this.#queue = run.catch(() => undefined)
    return run
  }

  async #appendNow(records: readonly Uint8Array[]): Promise<{ readonly firstSeq: number; readonly lastSeq: number }> {
    if (this.#lost) throw new FencedError(this.shard, this.epoch)
    const firstSeq = this.#nextSeq
    if (records.length === 0) return { firstSeq, lastSeq: firstSeq - 1 }
    const lastSeq = firstSeq + records.length - 1
    const result = await this.log.pool.query<{ fenced_in: number; written: number }>(appendSql,
      [this.shard, this.epoch, this.log.node, lastSeq, records.length, frameGroup(records)])
    if (result.rows[0].fenced_in === 0) {
      this.#lost = true
      throw new FencedError(this.shard, this.epoch)
    }
    this.#nextSeq = firstSeq + records.length
    return { firstSeq, lastSeq: this.#nextSeq - 1 }
  }

  /**
   * Writes records 1.. (a local log, page by page) as the shard's log, when the database holds none of it yet: one
   * transaction, the placement row held FOR UPDATE under this epoch, so the database has either all of them or none
   * (an importer that dies midway leaves the shard empty, never holding part of a history), and the standbys are
   * notified at its commit. `leaseMs` first extends the lease, committed on its own, so that no other node takes the
   * shard (ending this transaction's session as a stuck holder's) while the import runs. Rejects with FencedError
   * when the shard is no longer this owner's, and with an error, writing nothing, when its log is not empty.
   */
  async importLog(pages: Iterable<readonly Uint8Array[]>, leaseMs: number): Promise<{ readonly firstSeq: number; readonly lastSeq: number }> {
    const run = this.#queue.then(() => this.#importNow(pages, leaseMs))
    this.#queue = run.catch(() => undefined)
    return run
  }

  async #importNow(pages: Iterable<readonly Uint8Array[]>, leaseMs: number): Promise<{ readonly firstSeq: number; readonly lastSeq: number }> {
    if (!await this.renew(leaseMs)) throw new FencedError(this.shard, this.epoch)
    const client = await this.log.pool.connect()
    let failed = false
    try {
      await client.query('BEGIN')
      const fence = [this.shard, this.epoch, this.log.node]
      await client.query(importLockSql, fence)
      const seen = (await client.query<{ fenced_in: number; rows: number }>(importFenceSql, fence)).rows[0]
      if (seen.fenced_in === 0) {
        this.#lost = true
        throw new FencedError(this.shard, this.epoch)
      }
      if (seen.rows > 0 || this.#nextSeq !== 1) throw new Error(`shard ${this.shard}: its log in the database is not empty: a local log is written into an empty one only`)
      let nextSeq = 1
      for (const page of pages) {
        if (page.length === 0) continue
        await client.query(importPageSql, [this.shard, this.epoch, nextSeq + page.length - 1, page.length, frameGroup(page)])
        nextSeq += page.length
      }
      if (nextSeq > 1) await client.query(`SELECT pg_notify($1, $2)`, [channelOf(this.shard), String(nextSeq - 1)])
      await client.query('COMMIT')
      this.#nextSeq = nextSeq
      return { firstSeq: 1, lastSeq: nextSeq - 1 }
    } catch (error) {
      failed = true
      this.log.pool.lost(error)
      await client.query('ROLLBACK').catch(() => undefined)
      throw error
    } finally {
      client.release(failed)
    }
  }

  /** Extends the lease by leaseMs (the log's, unless given); false (and lost) when the shard is no longer ours at this epoch. */
  async renew(leaseMs = this.log.leaseMs): Promise<boolean> {
    if (this.#lost) return false
    const result = await this.log.pool.query(renewSql, [this.shard, this.log.node, this.epoch, leaseMs])
    if (result.rowCount === 1) return true
    this.#lost = true
    return false
  }
}

/** A node's handle on the replicated log: claims, takeovers, reads; appends go through the OwnedShard. */
export class PgLog {
  private constructor(readonly pool: PrimaryPool, readonly node: string, readonly leaseMs: number, readonly url: string) {}

  /**
   * Connects (a pool on the primary: the URL may list several hosts, src/cluster/pg-connect.ts) and creates the
   * tables when they are missing.
   */
  static async open(options: PgLogOptions): Promise<PgLog> {
    const pool = new PrimaryPool(options.url, { size: options.poolSize ?? 4, writer: true, findWindowMs: options.findWindowMs })
    const log = new PgLog(pool, options.node, options.leaseMs, options.url)
    try {
      await log.#createSchema()
    } catch (error) {
      await pool.end()
      throw error
    }
    return log
  }

  async #createSchema(): Promise<void> {
    const client = await this.pool.connect()
    try {
      await client.query('BEGIN')
      await client.query('SELECT pg_advisory_xact_lock($1)', [schemaLockKey])
      await client.query(schemaSql)
      await client.query('COMMIT')
    } catch (error) {
      this.pool.lost(error)
      await client.query('ROLLBACK').catch(() => undefined)
      throw error
    } finally {
      client.release()
    }
  }

  /**
   * What the database holds of the shard's seqs firstSeq..firstSeq+count-1, and its placement row, read after any
   * append holding that row has finished: the row is locked FOR SHARE first (an append locks it FOR UPDATE until it
   * commits), and the log is read in a second statement, whose snapshot is taken after the lock was granted. The
   * rows holding those seqs are the first `count` rows whose last seq is at least firstSeq (each holds one or more).
   */
  async readBack(shard: number, firstSeq: number, count: number): Promise<{ placement: { owner: string; epoch: number } | null; records: LogRecord[] }> {
    const client = await this.pool.connect()
    let failed = false
    try {
      await client.query('BEGIN')
      const placement = await client.query<{ owner: string; epoch: string }>('SELECT owner, epoch FROM placement WHERE shard = $1 FOR SHARE', [shard])
      const log = await client.query<GroupRow>(
        'SELECT seq, epoch, count, record FROM log WHERE shard = $1 AND seq >= $2 ORDER BY seq LIMIT $3', [shard, firstSeq, count])
      await client.query('COMMIT')
      const row = placement.rows[0]
      return {
        placement: row === undefined ? null : { owner: row.owner, epoch: Number(row.epoch) },
        records: recordsOfRows(log.rows, firstSeq - 1, count).filter((record) => record.seq < firstSeq + count),
      }
    } catch (error) {
      failed = true
      this.pool.lost(error)
      throw error
    } finally {
      // A client that failed mid-transaction is destroyed rather than returned (its state is unknown).
      client.release(failed)
    }
  }

  /** Takes a shard that has no placement row yet (epoch 1); null when another node's claim came first. */
  async claim(shard: number): Promise<OwnedShard | null> {
    const inserted = await this.pool.query<{ epoch: string }>(
      `INSERT INTO placement (shard, owner, epoch, lease_until) VALUES ($1, $2, 1, clock_timestamp() + $3 * interval '1 millisecond')
       ON CONFLICT (shard) DO NOTHING RETURNING epoch`, [shard, this.node, this.leaseMs])
    if (inserted.rowCount !== 1) return null
    return new OwnedShard(this, shard, 1, await this.#nextSeqOf(shard))
  }

  /**
   * Takes a shard whose lease has lapsed, if its epoch is still the one seen: the epoch goes up by one, which fences
   * the old owner. Null when the lease is still running or another node took it first. The next seq is read after
   * the UPDATE, in a statement of its own: the UPDATE waited for any append holding the row, so that append is in it.
   * With lockWaitMs, the UPDATE waits at most that long for the placement row (a transaction of a
   * stopped owner may hold it for as long as that process is stopped) and rejects with SQLSTATE 55P03, changing nothing.
   */
  async takeover(shard: number, seenEpoch: number, lockWaitMs?: number): Promise<OwnedShard | null> {
    // set_config(…, true) lasts for this statement's own transaction; it runs in the WHERE, before the row is locked.
    const updated = await this.pool.query<{ epoch: string }>(
      `UPDATE placement SET owner = $1, epoch = epoch + 1, lease_until = clock_timestamp() + $4 * interval '1 millisecond'
       WHERE shard = $2 AND epoch = $3 AND lease_until < clock_timestamp() AND set_config('lock_timeout', coalesce($5, current_setting('lock_timeout')), true) IS NOT NULL
       RETURNING epoch`, [this.node, shard, seenEpoch, this.leaseMs, lockWaitMs === undefined ? null : String(Math.max(1, Math.round(lockWaitMs)))])
    if (updated.rowCount !== 1) return null
    return new OwnedShard(this, shard, Number(updated.rows[0].epoch), await this.#nextSeqOf(shard))
  }

  /** Claims the shard if nobody has, else takes it over if its lease has lapsed; null when it is someone's. */
  async acquire(shard: number): Promise<OwnedShard | null> {
    const claimed = await this.claim(shard)
    if (claimed !== null) return claimed
    const seen = await this.placement(shard)
    if (seen === null || !seen.lapsed) return null
    return this.takeover(shard, seen.epoch)
  }

  async placement(shard: number): Promise<Placement | null> {
    const result = await this.pool.query<{ owner: string; epoch: string; lapsed: boolean }>(
      'SELECT owner, epoch, lease_until < clock_timestamp() AS lapsed FROM placement WHERE shard = $1', [shard])
    if (result.rowCount !== 1) return null
    const row = result.rows[0]
    return { shard, owner: row.owner, epoch: Number(row.epoch), lapsed: row.lapsed }
  }

  /** The shard's records after `afterSeq`, in seq order, at most `limit` of them (a page may end inside a group). */
  async read(shard: number, afterSeq: number, limit: number): Promise<LogRecord[]> {
    const result = await this.pool.query<GroupRow>(readSql, [shard, afterSeq, limit])
    return recordsOfRows(result.rows, afterSeq, limit)
  }

  async #nextSeqOf(shard: number): Promise<number> {
    const result = await this.pool.query<{ last: string }>('SELECT coalesce(max(seq), 0) AS last FROM log WHERE shard = $1', [shard])
    return Number(result.rows[0].last) + 1
  }

  async close(): Promise<void> {
    await this.pool.end()
  }
}
