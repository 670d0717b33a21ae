/** @module The HTTP server on uWebSockets.js: dispatch to health, admin and /v2, graceful drain on shutdown. */

import { App, us_listen_socket_close, us_socket_local_port, type us_listen_socket } from 'uWebSockets.js'
import type { Runtime } from '../actor/runtime.js'
import { reject } from '../errors.js'
import { handleAdmin } from './admin.js'
import { openExchange, readHeaders, send } from './http.js'
import { RateBuckets } from './rate-buckets.js'
import { Router } from './router.js'
import { accountRoutes } from './routes/accounts.js'
import { entryRoutes } from './routes/entries.js'
import { reconciliationRoutes } from './routes/reconciliations.js'
import { handleV2, sendRejection } from './v2-pipeline.js'

export interface ServerOptions {
  readonly runtime: Runtime
  readonly host: string
  readonly port: number
  readonly adminToken: string
  readonly bodyBytesMax: number
  readonly clock: () => number
  readonly onLogFailure: (error: Error) => void
}

export interface RunningServer {
  readonly port: number
  /** Stops accepting, waits for in-flight requests to be answered (at most graceMs). */
  close(graceMs: number): Promise<void>
}

const headerNames = ['authorization', 'idempotency-key', 'content-type'] as const
const presenceMatters = ['idempotency-key']

export const v2Routes = [...accountRoutes, ...entryRoutes, ...reconciliationRoutes]

export function startServer(options: ServerOptions): Promise<RunningServer> {
  const router = new Router(v2Routes)
  const v2 = { runtime: options.runtime, router, buckets: new RateBuckets(), clock: options.clock, bodyBytesMax: options.bodyBytesMax, onLogFailure: options.onLogFailure }
  const admin = { runtime: options.runtime, adminToken: options.adminToken, clock: options.clock, bodyBytesMax: options.bodyBytesMax, onLogFailure: options.onLogFailure }
  let inFlight = 0
  let closing = false
  const app = App().any('/*', (res, req) => {
    inFlight++
    const exchange = openExchange(res, () => { inFlight-- })
    const method = req.getMethod().toUpperCase()
    const path = req.getUrl()
    const query = req.getQuery() ?? ''
    const headers = readHeaders(req, headerNames, method === 'POST' ? presenceMatters : [])
    if (closing) return sendRejection(exchange, reject('unavailable', 'The service is shutting down.'), [])
    try {
      if (path === '/healthz' && method === 'GET') return send(exchange, 200, '{"status":"ok"}', [])
      if (path.startsWith('/admin/')) return handleAdmin(admin, exchange, method, path, headers.get('authorization'))
      handleV2(v2, exchange, { method, path, query, headers })
    } catch (error) {
      // A programmer error: answer rather than leave the client hanging, then let it crash loudly.
      sendRejection(exchange, reject('unavailable', 'Internal error.'), [])
      throw error
    }
  })
  return new Promise((resolve, reject) => {
    app.listen(options.host, options.port, (socket: us_listen_socket | false) => {
      if (socket === false) return reject(new Error(`cannot listen on ${options.host}:${options.port}`))
      resolve({
        port: us_socket_local_port(socket),
        close: async (graceMs) => {
          closing = true
          us_listen_socket_close(socket)
          const deadlineMs = Date.now() + graceMs
          while (inFlight > 0 && Date.now() < deadlineMs) await new Promise((done) => setTimeout(done, 10))
          app.close()
        },
      })
    })
  })
}
