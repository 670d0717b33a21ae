/**
 * @module A worker thread of bench/stream.ts's fan-out rows: `count` raw subscribers of one window, each
 * update's derived_movement and its arrival time (epoch ms, sub-ms) recorded, handed back when told to stop.
 */
// The subscribers were spread over threads because one thread receiving 1,000 sockets' updates was the
// limit of the row (PERFORMANCE.md): the server was 75 % idle while the bench's one thread was not.

import { parentPort, workerData } from 'node:worker_threads'
import { WebSocket } from 'ws'

export interface SubscribersData {
  readonly url: string
  readonly key: string
  readonly windowId: string
  readonly count: number
}

/** What a worker sends back: `ready` once all subscribed, then on `stop` the arrivals (parallel arrays). */
export type SubscribersReport =
  | { readonly type: 'ready' }
  | { readonly type: 'arrivals'; readonly movements: Float64Array; readonly atMs: Float64Array; readonly count: number }

const { url, key, windowId, count } = workerData as SubscribersData
const connectAtOnce = 50
const marker = Buffer.from('"derived_movement":')
const typePrefix = Buffer.from('{"type":"reconciliation"')
const subscribedPrefix = Buffer.from('{"type":"subscribed"')
const minus = 0x2d
const zero = 0x30

let movements = new Float64Array(1 << 16)
let arrivalsMs = new Float64Array(1 << 16)
let arrivals = 0

function record(movement: number, atMs: number): void {
  if (arrivals === movements.length) {
    const grownMovements = new Float64Array(arrivals * 2)
    const grownAtMs = new Float64Array(arrivals * 2)
    grownMovements.set(movements)
    grownAtMs.set(arrivalsMs)
    movements = grownMovements
    arrivalsMs = grownAtMs
  }
  movements[arrivals] = movement
  arrivalsMs[arrivals++] = atMs
}

/** The integer after `"derived_movement":`, read from the frame's bytes: no string, no JSON parse per update. */
function movementOf(bytes: Buffer): number | null {
  const at = bytes.indexOf(marker)
  if (at < 0) return null
  let index = at + marker.length
  const negative = bytes[index] === minus
  if (negative) index++
  let value = 0
  for (; index < bytes.length && bytes[index] >= zero && bytes[index] <= zero + 9; index++) value = value * 10 + bytes[index] - zero
  return negative ? -value : value
}

function subscriber(): Promise<WebSocket> {
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${key}` }, skipUTF8Validation: true, perMessageDeflate: false })
  return new Promise((resolve, reject) => {
    socket.on('message', (data: Buffer) => {
      // Stamped first: the time it arrived, before any work of ours.
      const atMs = performance.timeOrigin + performance.now()
      if (data.subarray(0, typePrefix.length).equals(typePrefix)) {
        const movement = movementOf(data)
        if (movement !== null) record(movement, atMs)
      } else if (data.subarray(0, subscribedPrefix.length).equals(subscribedPrefix)) resolve(socket)
    })
    socket.once('open', () => socket.send(JSON.stringify({ type: 'subscribe', reconciliations: [windowId] })))
    socket.once('error', reject)
  })
}

const sockets: WebSocket[] = []
for (let started = 0; started < count; started += connectAtOnce) {
  sockets.push(...await Promise.all(Array.from({ length: Math.min(connectAtOnce, count - started) }, subscriber)))
}
parentPort!.postMessage({ type: 'ready' } satisfies SubscribersReport)
parentPort!.once('message', () => {
  for (const socket of sockets) socket.close()
  const report: SubscribersReport = { type: 'arrivals', movements: movements.slice(0, arrivals), atMs: arrivalsMs.slice(0, arrivals), count: arrivals }
  parentPort!.postMessage(report, [report.movements.buffer as ArrayBuffer, report.atMs.buffer as ArrayBuffer])
})
