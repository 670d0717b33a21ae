/**
 * Exports over the WebSocket (docs/API.md, "WebSocket API and live updates"): a file (CSV, PDF) does not fit
 * a JSON message, and one message would hold the whole export: the socket refuses them (400, pointing to
 * HTTP), after the route's own checks (an unknown window is still 404). HTTP streams them.
 */
import t from 'tap'
import { createAccount } from '../support/api.ts'
import { call, startTestService } from '../support/service.ts'
import { openSocket } from '../support/ws.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await createAccount(baseUrl, key, 'assets:bank')
const window = await call(baseUrl, 'POST', '/v2/reconciliations', { key, body: { label: 'Nov', accounts: ['assets:bank'], window: { from: '2026-11-01', to: '2026-11-22' }, claimed_movement: 0 } })

t.test('every export is refused on the socket with a pointer to HTTP', async (t) => {
  const socket = await openSocket(baseUrl, key)
  await socket.next((message) => message.type === 'authenticated')
  const paths = ['json', 'csv', 'pdf'].map((format) => `/v2/reconciliations/${window.body.id}/export?format=${format}`).concat('/v2/entries/export')
  for (const [index, path] of paths.entries()) {
    socket.send({ type: 'request', id: `e${index}`, method: 'GET', path })
    const answer = await socket.next((message) => message.id === `e${index}`)
    t.match(answer, { type: 'response', status: 400, body: { error: { code: 'request_invalid', message: /HTTP/ } } }, path)
    t.equal((await call(baseUrl, 'GET', path, { key })).status, 200, `${path} over HTTP`)
  }
  socket.send({ type: 'request', id: 'missing', method: 'GET', path: '/v2/reconciliations/rec_nope/export?format=pdf' })
  t.match(await socket.next((message) => message.id === 'missing'), { status: 404, body: { error: { code: 'not_found' } } }, 'the route\'s checks come first')
  socket.send({ type: 'request', id: 'after', method: 'GET', path: '/v2/accounts' })
  t.match(await socket.next((message) => message.id === 'after'), { status: 200 }, 'the socket serves on')
  socket.socket.close()
})
