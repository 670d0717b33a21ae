/**
 * kill -9 with WebSocket requests in flight (docs/RELIABILITY.md, 12): every write answered 201 over a socket
 * (single entries and batches) is there after the restart, exactly once.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { killHard, startProcess, type RunningProcess } from '../support/process.ts'
import { openSocket } from '../support/ws.ts'

const adminToken = 'x'
const socketsCount = 4
const inFlightPerSocket = 64
const loadMs = 1200
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-stream-crash-'))
const live: RunningProcess[] = []
t.teardown(async () => {
  for (const running of live) await killHard(running)
  fs.rmSync(dataDir, { recursive: true, force: true })
})

async function json(baseUrl: string, secret: string, method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(baseUrl + route, { method, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  return response.json()
}

const first = await startProcess({ dataDir, adminToken })
live.push(first)
const key = first.apiKey!
await json(first.baseUrl, adminToken, 'PATCH', '/admin/workspaces/default', { limits: { writes_per_minute: 100_000_000, reads_per_minute: 100_000_000 } })
for (const name of ['assets:bank', 'income:sales']) await json(first.baseUrl, key, 'POST', '/v2/accounts', { name })

/** Every description answered 201 (a batch's entries each have their own). */
const acknowledged = new Set<string>()
let sent = 0

async function load(socketIndex: number): Promise<void> {
  const socket = await openSocket(first.baseUrl, key)
  await socket.next((message) => message.type === 'authenticated')
  const pending = new Map<string, string[]>()
  let unanswered = 0
  socket.socket.on('message', (data) => {
    const message = JSON.parse(String(data))
    if (message.type !== 'response') return
    unanswered--
    if (message.status !== 201) return
    for (const description of pending.get(message.id) ?? []) acknowledged.add(description)
  })
  const stopAtMs = Date.now() + loadMs
  const sendOne = () => {
    unanswered++
    const id = `${socketIndex}-${sent++}`
    const entry = (suffix: string) => ({ lines: [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -1 }], description: `${id}${suffix}` })
    if (sent % 8 === 0) {
      pending.set(id, ['a', 'b', 'c'].map((suffix) => `${id}${suffix}`))
      socket.send({ type: 'request', id, method: 'POST', path: '/v2/entries/batch', body: { entries: ['a', 'b', 'c'].map(entry) } })
    } else {
      pending.set(id, [id])
      socket.send({ type: 'request', id, method: 'POST', path: '/v2/entries', body: entry('') })
    }
  }
  // Keep about inFlightPerSocket unanswered: send more whenever answers come back.
  for (let index = 0; index < inFlightPerSocket; index++) sendOne()
  while (Date.now() < stopAtMs) {
    await new Promise((resolve) => setTimeout(resolve, 5))
    while (unanswered < inFlightPerSocket && Date.now() < stopAtMs && first.child.exitCode === null && first.child.signalCode === null) sendOne()
  }
}

t.test('kill -9 mid-load: every answered write survives, once', async (t) => {
  const loads = Array.from({ length: socketsCount }, (_, index) => load(index))
  await new Promise((resolve) => setTimeout(resolve, loadMs / 2))
  await killHard(first)
  await Promise.allSettled(loads)
  t.ok(acknowledged.size > 0, `writes were answered before the kill (${acknowledged.size})`)
  const second = await startProcess({ dataDir, adminToken })
  live.push(second)
  const counts = new Map<string, number>()
  let cursor: string | null = null
  do {
    const page: any = await json(second.baseUrl, key, 'GET', `/v2/entries?limit=1000${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`)
    for (const entry of page.data) counts.set(entry.description, (counts.get(entry.description) ?? 0) + 1)
    cursor = page.next_cursor
  } while (cursor !== null)
  t.same([...acknowledged].filter((description) => counts.get(description) !== 1), [], 'every answered write is there exactly once')
  t.same([...counts.values()].filter((count) => count !== 1), [], 'no entry twice')
})
