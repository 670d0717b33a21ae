/** @module The ceiling: a bare uWebSockets.js server answering one fixed JSON body, nothing else. */
// Run as a child by bench/run.ts; prints `listening <port>` and serves until SIGTERM (or the deadline).
import { App, us_listen_socket_close, us_socket_local_port, type us_listen_socket } from 'uWebSockets.js'

/** About the size of a balance answer, so bytes on the wire are comparable. */
const body = JSON.stringify({ account: 'acc_xxxxxxxx000000001', name: 'acct:001', balance: 123456, at: '2026-10-31T23:59:59.999Z' })
/** The bench never needs the ceiling for longer; a forgotten child stops by itself. */
const lifetimeMs = 15 * 60_000

const app = App().any('/*', (res) => {
  res.cork(() => {
    res.writeStatus('200 OK')
    res.writeHeader('content-type', 'application/json')
    res.end(body)
  })
})
app.listen('127.0.0.1', 0, (socket: us_listen_socket | false) => {
  if (socket === false) throw new Error('ceiling: cannot listen')
  process.stdout.write(`listening ${us_socket_local_port(socket)}\n`)
  const stop = () => { us_listen_socket_close(socket); app.close(); process.exit(0) }
  process.on('SIGTERM', stop)
  setTimeout(stop, lifetimeMs).unref()
})
