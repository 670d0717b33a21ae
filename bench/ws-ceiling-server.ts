/** @module The WebSocket ceiling: bare uWebSockets.js answering each request message with a fixed response of its id, nothing else. */
// Run as a child by bench/stream.ts; prints `listening <port>` and serves until SIGTERM (or the deadline).
// It speaks just enough of the protocol for trueup/client: `authenticated` to the auth message, a response per request.
import { App, us_listen_socket_close, us_socket_local_port, type us_listen_socket } from 'uWebSockets.js'

/** About the size of an entry answer, so bytes on the wire are comparable. */
const body = JSON.stringify({ id: 'ent_xxxxxxx000000001', lines: [{ account: 'assets:bank', account_id: 'acc_xxxxxxx000000001', amount: 1 }, { account: 'income:sales', account_id: 'acc_xxxxxxx000000002', amount: -1 }], effective_at: '2026-11-23T00:00:00.000Z', posted_at: '2026-11-23T00:00:00.000Z', description: null, metadata: null })
const lifetimeMs = 15 * 60_000

const app = App().ws('/v2/stream', {
  maxPayloadLength: 1024 * 1024,
  message: (ws, message) => {
    const parsed = JSON.parse(Buffer.from(message).toString('utf8')) as { type: string; id?: string }
    if (parsed.type === 'auth') return void ws.send('{"type":"authenticated","key":"key_ceiling","workspace":"ceiling"}')
    ws.send(`{"type":"response","id":${JSON.stringify(parsed.id)},"status":201,"headers":{},"body":${body}}`)
  },
})
app.listen('127.0.0.1', 0, (socket: us_listen_socket | false) => {
  if (socket === false) throw new Error('ws ceiling: cannot listen')
  process.stdout.write(`listening ${us_socket_local_port(socket)}\n`)
  const stop = () => { us_listen_socket_close(socket); app.close(); process.exit(0) }
  process.on('SIGTERM', stop)
  setTimeout(stop, lifetimeMs).unref()
})
