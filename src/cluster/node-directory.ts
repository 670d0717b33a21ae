/**
 * @module Where each node answers (NODE_URL), kept in the database beside the placement table, so that any node can
 * forward a request for a shard to the node that owns it: `node_url(node, url)`, written by each node at start.
 */

import type { PgLog } from './pg-log.js'

const schemaSql = `CREATE TABLE IF NOT EXISTS node_url (node text PRIMARY KEY, url text NOT NULL)`

/** A shard's placement as a standby sees it: the owner, its epoch, whether its lease lapsed, and where it answers. */
export interface SeenPlacement {
  readonly owner: string
  readonly epoch: number
  readonly lapsed: boolean
  /** The owner's NODE_URL, or null when it never said (an older node). */
  readonly url: string | null
}

/** Records this node's URL (the table made when missing); a restart with a new URL replaces the old one. */
export async function registerNode(log: PgLog, url: string): Promise<void> {
  await log.pool.query(schemaSql).catch(async (error: unknown) => {
    // Two first nodes creating the table at once: one of them loses the race on the catalog; the table is there.
    if (!(await tableExists(log))) throw error
  })
  await log.pool.query(
    'INSERT INTO node_url (node, url) VALUES ($1, $2) ON CONFLICT (node) DO UPDATE SET url = excluded.url', [log.node, url])
}

async function tableExists(log: PgLog): Promise<boolean> {
  const result = await log.pool.query<{ found: boolean }>(`SELECT to_regclass('node_url') IS NOT NULL AS found`)
  return result.rows[0].found
}

/** The shard's placement with its owner's URL; null when nobody ever claimed the shard. */
export async function seePlacement(log: PgLog, shard: number): Promise<SeenPlacement | null> {
  const result = await log.pool.query<{ owner: string; epoch: string; lapsed: boolean; url: string | null }>(
    `SELECT p.owner, p.epoch, p.lease_until < clock_timestamp() AS lapsed, n.url
     FROM placement p LEFT JOIN node_url n ON n.node = p.owner WHERE p.shard = $1`, [shard])
  if (result.rowCount !== 1) return null
  const row = result.rows[0]
  return { owner: row.owner, epoch: Number(row.epoch), lapsed: row.lapsed, url: row.url }
}
