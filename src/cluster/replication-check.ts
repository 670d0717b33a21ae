/**
 * @module What the database says about its replication, checked at a cluster node's start: an answered write is
 * meant to survive the loss of any one machine, which holds only when each commit waits for a standby
 * (`synchronous_commit = on` and `synchronous_standby_names` naming standbys that are connected and synchronous).
 * A database that does not is still usable (one machine's disk then holds the books): the node warns, never refuses.
 */

import { connectTarget, parseDatabaseUrl } from './pg-connect.js'

export interface ReplicationReport {
  readonly synchronousCommit: string
  readonly synchronousStandbyNames: string
  /** Standbys connected now whose replication is synchronous (sync_state `sync` or `quorum`). */
  readonly synchronousStandbys: number
  /** Why an answered write might not survive the loss of this server; null when it would. */
  readonly warning: string | null
}

/** The commit levels at which a commit waits for a synchronous standby to have the WAL on disk, at least. */
const waitingCommitLevels = new Set(['on', 'remote_apply'])

/** Reads the settings and the replication of the server at `url` (read only: it waits for no standby). */
export async function checkReplication(url: string, connectTimeoutMs = 5_000): Promise<ReplicationReport> {
  // A URL of several hosts (pg_auto_failover's) is checked on the host the node would use (src/cluster/pg-connect.ts).
  const { client } = await connectTarget(parseDatabaseUrl(url), connectTimeoutMs)
  try {
    const result = await client.query<{ commit: string; names: string; standbys: number; recovering: boolean }>(
      `SELECT current_setting('synchronous_commit') AS commit, current_setting('synchronous_standby_names') AS names,
         (SELECT count(*)::int FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')) AS standbys,
         pg_is_in_recovery() AS recovering`)
    const row = result.rows[0]
    return { synchronousCommit: row.commit, synchronousStandbyNames: row.names, synchronousStandbys: row.standbys, warning: warningOf(row) }
  } finally {
    await client.end().catch(() => undefined)
  }
}

function warningOf(row: { commit: string; names: string; standbys: number; recovering: boolean }): string | null {
  if (row.recovering) return 'the database is a standby (read only): CLUSTER_DATABASE_URL must reach the primary'
  if (row.names.trim() === '') return 'synchronous_standby_names is empty: a commit waits for no standby, so an answered write lives on one machine until replicated'
  if (!waitingCommitLevels.has(row.commit)) return `synchronous_commit is ${row.commit}: a commit does not wait for a standby's disk`
  if (row.standbys === 0) return 'no synchronous standby is connected: commits wait until one is'
  return null
}
