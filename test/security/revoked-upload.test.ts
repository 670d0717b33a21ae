/** A key revoked while its request's body is still arriving writes nothing (issue 12.3): the key is checked again once the body is complete. */
import net from 'node:net'
import t from 'tap'
import { adminCreateKey, createAccount, listAll, raiseLimits, scopesAll } from '../support/api.ts'
import { parseAnswer } from '../support/raw-exchange.ts'
import { call, startTestService } from '../support/service.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: all } = service
await raiseLimits(service, 'default')
await createAccount(baseUrl, all, 'assets:upload-bank')
await createAccount(baseUrl, all, 'income:upload-sales')

/**
 * Opens a socket, writes the head and the first `firstBytes` of the body, then waits for a whole other
 * exchange with the server (GET /healthz), by which time the server has taken the head it read first (and
 * checked the key); `rest` writes the remainder and resolves with the answer.
 */
async function startUpload(route: string, secret: string, body: Buffer, firstBytes: number): Promise<{ rest(): Promise<{ status: number; body: any }> }> {
  const { hostname, port } = new URL(baseUrl)
  const socket = net.connect(Number(port), hostname)
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  const head = `POST ${route} HTTP/1.1\r\nhost: ${hostname}\r\nconnection: close\r\nauthorization: Bearer ${secret}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`
  const chunks: Buffer[] = []
  const answered = new Promise<{ status: number; body: any }>((resolve, reject) => {
    const settle = (ended: boolean) => {
      const parsed = parseAnswer(Buffer.concat(chunks), ended)
      if (parsed !== null) resolve({ status: parsed.status, body: JSON.parse(parsed.text) })
      else if (ended) reject(new Error('the connection closed without an answer'))
    }
    socket.on('data', (chunk) => { chunks.push(chunk); settle(false) })
    socket.on('end', () => settle(true))
    socket.on('error', reject)
  })
  await new Promise<void>((resolve) => socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body.subarray(0, firstBytes)]), () => resolve()))
  const health = await call(baseUrl, 'GET', '/healthz')
  if (health.status !== 200) throw new Error(`healthz: ${health.status}`)
  return {
    rest: async () => {
      socket.write(body.subarray(firstBytes))
      const answer = await answered
      socket.destroy()
      return answer
    },
  }
}

const entries = async () => (await listAll(baseUrl, all, '/v2/entries', 1000)).items.length

t.test('revoked through the admin API during the upload: 401, nothing stored', async (t) => {
  const key = await adminCreateKey(service, 'default', scopesAll)
  const body = Buffer.from(JSON.stringify({ lines: [{ account: 'assets:upload-bank', amount: 10 }, { account: 'income:upload-sales', amount: -10 }], description: 'x'.repeat(900) }))
  const before = await entries()
  const upload = await startUpload('/v2/entries', key.secret, body, body.length >> 1)
  const revoked = await call(baseUrl, 'DELETE', `/admin/keys/${key.id}`, { key: service.adminToken })
  t.equal(revoked.status, 204, 'the key is revoked while half the body is sent')
  const answer = await upload.rest()
  t.equal(answer.status, 401, 'the rest arrives: 401')
  t.equal(answer.body?.error?.code, 'unauthenticated')
  t.equal(await entries(), before, 'no entry stored')
})

t.test('a key that stays valid through a slow upload writes as usual', async (t) => {
  const key = await adminCreateKey(service, 'default', scopesAll)
  const body = Buffer.from(JSON.stringify({ lines: [{ account: 'assets:upload-bank', amount: 11 }, { account: 'income:upload-sales', amount: -11 }] }))
  const before = await entries()
  const upload = await startUpload('/v2/entries', key.secret, body, body.length >> 1)
  const answer = await upload.rest()
  t.equal(answer.status, 201)
  t.equal(await entries(), before + 1)
})
