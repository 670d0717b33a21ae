/**
 * @module Webhook deliveries the owner finished, kept in the database beside the log so that a standby can drop them
 * from the outbox it keeps for a takeover (docs/CLUSTER.md, "Webhooks"): `webhook_done(id, shard, key, row)`, one row
 * per outbox item delivered or given up, with its final delivery row (src/webhooks/outbox.ts's bytes). The owner
 * writes what finished once a second; a standby reads what is new once a second. What finished in the owner's last
 * second before it died is delivered again by the new owner, with the same webhook-id.
 */

import type { PgLog } from './pg-log.js'

const schemaSql = `CREATE TABLE IF NOT EXISTS webhook_done (id bigserial PRIMARY KEY, shard integer NOT NULL, key text NOT NULL, row bytea NOT NULL)`
/** Rows read per look, at most (a standby catching up reads the rest at its next looks). */
const readRowsMax = 10_000

/** One outbox item finished: its key and its final delivery row, encoded. */
export interface DoneDelivery {
  readonly key: string
  readonly row: Buffer
}

export async function ensureWebhookDone(log: PgLog): Promise<void> {
  await log.pool.query(schemaSql).catch(async (error: unknown) => {
    // Two first nodes creating the table at once: one loses the race on the catalog; the table is there.
    const found = await log.pool.query<{ found: boolean }>(`SELECT to_regclass('webhook_done') IS NOT NULL AS found`)
    if (!found.rows[0].found) throw error
  })
}

/** The owner: what finished since its last call, in one statement. */
export async function publishDone(log: PgLog, shard: number, done: readonly DoneDelivery[]): Promise<void> {
  if (done.length === 0) return
  await log.pool.query('INSERT INTO webhook_done (shard, key, row) SELECT $1, * FROM unnest($2::text[], $3::bytea[])',
    [shard, done.map((each) => each.key), done.map((each) => each.row)])
}

/** A standby: what finished after row `afterId`, in order, with the last id read (afterId when nothing is new). */
export async function readDone(log: PgLog, shard: number, afterId: number): Promise<{ readonly done: DoneDelivery[]; readonly lastId: number }> {
  const result = await log.pool.query<{ id: string; key: string; row: Buffer }>(
    'SELECT id, key, row FROM webhook_done WHERE shard = $1 AND id > $2 ORDER BY id LIMIT $3', [shard, afterId, readRowsMax])
  const lastId = result.rows.length === 0 ? afterId : Number(result.rows[result.rows.length - 1].id)
  return { done: result.rows.map((row) => ({ key: row.key, row: row.row })), lastId }
}
