/**
 * Work before the rate check (docs/API.md, "Rate limits"): a write is charged its first token before its body
 * is read, so an exhausted budget answers 429 without reading or parsing the body; a batch's further tokens are
 * charged once it is parsed. And every statement file, small ones too, is parsed off the event loop.
 */
import net from 'node:net'
import t from 'tap'
import { adminCreateKey, adminCreateWorkspace, scopesAll } from '../support/api.ts'
import { call, startTestService } from '../support/service.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl } = service

async function workspaceKey(id: string, limits: { writes_per_minute: number; reads_per_minute: number }): Promise<string> {
  if ((await call(baseUrl, 'POST', '/admin/workspaces', { key: service.adminToken, body: { id, timezone: 'UTC', limits } })).status !== 201) throw new Error('workspace')
  return (await adminCreateKey(service, id, scopesAll)).secret
}

/** Sends the head of a request announcing `announcedBytes` of body and only `sentBytes` of it; the status of the first answer, or null after timeoutMs. */
function statusBeforeBody(route: string, key: string, announcedBytes: number, sentBytes: number, timeoutMs: number): Promise<number | null> {
  const { hostname, port } = new URL(baseUrl)
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(`POST ${route} HTTP/1.1\r\nhost: ${hostname}:${port}\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: ${announcedBytes}\r\n\r\n`)
      socket.write(Buffer.alloc(sentBytes, 0x20))
    })
    let received = ''
    const timer = setTimeout(() => finish(null), timeoutMs)
    const finish = (status: number | null) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(status)
    }
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1')
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received)
      if (status !== null) finish(Number(status[1]))
    })
    socket.on('error', () => finish(null))
  })
}

t.test('an exhausted write budget answers 429 before a 16 MiB body is read', async (t) => {
  const key = await workspaceKey('empty-budget', { writes_per_minute: 1, reads_per_minute: 1000 })
  t.equal((await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:cash' } })).status, 201, 'the one write token')
  const status = await statusBeforeBody('/v2/entries/batch', key, 16 * 1024 * 1024, 1024, 5000)
  t.equal(status, 429, 'answered 429 while 16 MiB less 1 KiB of the body were never sent')
  const again = await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:bank' } })
  t.equal(again.status, 429, 'the connection that was refused did not take a token from the next request: it is still 429 on the budget')
  t.equal((await call(baseUrl, 'GET', '/v2/accounts', { key })).body.data.length, 1, 'nothing written')
})

t.test('a statement file of a few bytes is read in the worker thread too', async (t) => {
  const key = await workspaceKey('small-file', { writes_per_minute: 1000, reads_per_minute: 1000 })
  // Counted on every thread that serves HTTP (with EDGE_THREADS=1 a shard's thread reads the file in its own worker).
  const filesReadInWorker = async () => (await service.service.edgeCounts()).filesReadInWorker
  const before = await filesReadInWorker()
  const reply = await call(baseUrl, 'POST', '/v2/statements', { key, raw: '<?xml version="1.0"?><Document><BkToCstmrStmt></BkToCstmrStmt></Document>', headers: { 'content-type': 'application/xml' } })
  t.equal(reply.status, 400, 'an empty camt.053 is statement_invalid')
  t.equal(await filesReadInWorker(), before + 1, 'read in the worker')
})
