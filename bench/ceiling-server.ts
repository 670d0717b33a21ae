/** @module The ceiling: a bare uWebSockets.js server answering one fixed JSON body, nothing else. */
// Run as a child by bench/run.ts; prints `listening <port>` and serves until SIGTERM (or the deadline).
// Every request (any method, path and body) gets the same 200 with the same JSON body. Before each ceiling
// run the bench sets that body's size to the size of the answers of the row it compares with
// (`PUT /__ceiling/bytes/<n>`, answered 204), so both runs put the same bytes on the wire.
import { App, us_listen_socket_close, us_socket_local_port, type us_listen_socket } from 'uWebSockets.js'

/** The bench never needs the ceiling for longer; a forgotten child stops by itself. */
const lifetimeMs = 15 * 60_000
const bytesMax = 1 << 20

/** A JSON object of exactly `bytes` bytes (at least the bytes of `{"pad":""}`). */
function bodyOfBytes(bytes: number): string {
  const frame = '{"pad":""}'
  return `{"pad":"${'x'.repeat(Math.max(0, bytes - frame.length))}"}`
}

/** About the size of a balance answer, until the bench names one. */
let body = bodyOfBytes(110)

const app = App()
  .put('/__ceiling/bytes/:bytes', (res, req) => {
    const bytes = Number(req.getParameter(0))
    const ok = Number.isSafeInteger(bytes) && bytes >= 0 && bytes <= bytesMax
    if (ok) body = bodyOfBytes(bytes)
    res.cork(() => { res.writeStatus(ok ? '204 No Content' : '400 Bad Request').endWithoutBody() })
  })
  .any('/*', (res) => {
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
