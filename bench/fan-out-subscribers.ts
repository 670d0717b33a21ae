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

/** Told when the writer is done: the last movement posted, and how long to wait for it on every socket. */
export interface SubscribersStop {
  readonly lastMovement: number
  readonly waitMsMax: number
}

/** What a worker sends back: `ready` once all subscribed, then on stop (once every socket saw the last movement, or time ran out) the arrivals (parallel arrays). */
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

/** Per socket, the highest movement it received: the worker stops once each has the writer's last. */
const lastSeen: number[] = []

function subscriber(): Promise<WebSocket> {
  const index = lastSeen.push(Number.NEGATIVE_INFINITY) - 1
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${key}` }, skipUTF8Validation: true, perMessageDeflate: false })
  return new Promise((resolve, reject) => {
    socket.on('message', (data: Buffer) => {
      // Stamped first: the time it arrived, before any work of ours.
      const atMs = performance.timeOrigin + performance.now()
      if (data.subarray(0, typePrefix.length).equals(typePrefix)) {
        const movement = movementOf(data)
        if (movement === null) return
        record(movement, atMs)
        if (movement > lastSeen[index]) lastSeen[index] = movement
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
parentPort!.once('message', async ({ lastMovement, waitMsMax }: SubscribersStop) => {
  // Late updates are waited for, not cut off: a lagging subscriber must show in the delays, not drop out of them.
  const untilMs = Date.now() + waitMsMax
  while (lastSeen.some((seen) => seen < lastMovement) && Date.now() < untilMs) await new Promise((resolve) => setTimeout(resolve, 20))
  for (const socket of sockets) socket.close()
  const report: SubscribersReport = { type: 'arrivals', movements: movements.slice(0, arrivals), atMs: arrivalsMs.slice(0, arrivals), count: arrivals }
  parentPort!.postMessage(report, [report.movements.buffer as ArrayBuffer, report.atMs.buffer as ArrayBuffer])
})
