/** @module Embedded use over HTTP: createServer starts the whole service (its own data dir) inside the calling process. */

import { resolveConfig, type ConfigInput } from '../config.js'
import { startService } from '../service.js'

export interface CreateServerOptions extends Omit<ConfigInput, 'dataDir'> {
  /** Where the log, snapshots and admin token live; one process at a time per data dir. */
  readonly dataDir: string
  /**
   * Milliseconds since the epoch; injectable for tests. With it, HTTP is served on the main thread unless
   * `edgeThreads` is set (the shards' threads cannot call it, and would read the system clock).
   */
  readonly clock?: () => number
  /**
   * Called if the log cannot be written. The service then answers 503 to everything (memory may be
   * ahead of the disk); stop it and start again to recover from the log. Default: a process warning.
   */
  readonly onLogFailure?: (error: Error) => void
}

export interface EmbeddedServer {
  readonly port: number
  /** `http://host:port`. */
  readonly url: string
  readonly adminToken: string
  /** The all-scope key of workspace `default`, when this start created it (an empty data dir); shown nowhere else. */
  readonly apiKey?: string
  /** Stops accepting, answers in-flight requests, flushes the log, snapshots, closes. */
  stop(): Promise<void>
}

/** Starts the HTTP service as `npm start` does, minus the process: no signals, no stdout secrets. */
export async function createServer(options: CreateServerOptions): Promise<EmbeddedServer> {
  const { clock, onLogFailure, ...configInput } = options
  // A caller's clock is a function of this thread, which the edges on the shards' threads cannot call: with one
  // given, the main thread serves unless edgeThreads is set.
  const config = resolveConfig({ ...configInput, edgeThreads: configInput.edgeThreads ?? (clock === undefined ? undefined : false) })
  const service = await startService(config, {
    // The key and token are returned to the caller instead of printed.
    print: () => {},
    clock: clock ?? (() => Date.now()),
    onLogFailure: onLogFailure ?? ((error) => process.emitWarning(`trueup: the log could not be written (${error.message}); every request now answers 503 until the server is restarted`)),
  })
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  return {
    port: service.port,
    url: `http://${host}:${service.port}`,
    adminToken: service.adminToken,
    ...(service.firstApiKey === null ? {} : { apiKey: service.firstApiKey }),
    stop: () => service.stop(),
  }
}
