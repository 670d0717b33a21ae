/** @module A port that was free a moment ago on 127.0.0.1: for the local cluster's processes and the tests' servers. */

import net from 'node:net'

/** Binds port 0 on 127.0.0.1, reads the port the kernel gave, closes. Another process may take it before it is used. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      if (address === null || typeof address === 'string') return reject(new Error('no port'))
      server.close(() => resolve(address.port))
    })
  })
}
