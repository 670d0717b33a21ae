/** @module PgLogs on one local PostgreSQL for a test file: started before its tests, every log closed and the server stopped after. */
import type { Test } from 'tap'
import { PgLog } from '../../src/cluster/pg-log.ts'
import { startLocalPostgres, type LocalPostgres } from '../../scripts/local-postgres.ts'

/** Opens a PgLog as `node` on the file's server (leaseMs 10 s and a pool of 2 unless given). */
export type OpenLog = (node: string, leaseMs?: number, poolSize?: number) => Promise<PgLog>

export function pgLogsOnLocalServer(t: Test): OpenLog {
  let server: LocalPostgres | undefined
  const opened: PgLog[] = []
  t.before(async () => { server = await startLocalPostgres() })
  t.teardown(async () => {
    for (const log of opened) await log.close().catch(() => undefined)
    await server?.stop()
  })
  return async (node, leaseMs = 10_000, poolSize = 2) => {
    const log = await PgLog.open({ url: server!.url, node, leaseMs, poolSize })
    opened.push(log)
    return log
  }
}
