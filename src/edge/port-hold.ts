/**
 * @module The listen address, taken before start-up touches the data dir and held through replay: a port in use
 * refuses the start at once, with nothing changed, instead of after the log was opened and a first start written.
 */

import net from 'node:net'
import { reasonOf, StartRefused } from '../start-refused.js'

export interface PortHold {
  /** Closes the placeholder socket; its descriptor is closed at once, so the real listener can bind in the same turn. */
  release(): void
}

/** The refusal for host:port, from the error a bind gave. */
export function listenRefused(host: string, port: number, error: unknown): StartRefused {
  const code = (error as NodeJS.ErrnoException | null)?.code
  const reason = code === 'EADDRINUSE' ? 'address in use' : code === 'EADDRNOTAVAIL' ? 'address not available on this machine' : reasonOf(error)
  return new StartRefused(`cannot listen on ${host}:${port}: ${reason}`)
}

/**
 * Binds host:port with a plain Node listener (no SO_REUSEPORT: it fails on a port anything listens on, a
 * uWebSockets.js server included) and keeps it until released. Port 0 holds nothing: the real listener
 * picks a free port then. Rejects with StartRefused (`cannot listen on host:port: address in use`).
 */
export function holdPort(host: string, port: number): Promise<PortHold | null> {
  if (port === 0) return Promise.resolve(null)
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', (error) => reject(listenRefused(host, port, error)))
    server.listen({ host, port, exclusive: true }, () => {
      server.removeAllListeners('error')
      // Nothing is served on it; a connection that slips in before the release is closed at once.
      server.on('connection', (socket) => socket.destroy())
      let released = false
      resolve({
        release: () => {
          if (released) return
          released = true
          server.close()
        },
      })
    })
  })
}
