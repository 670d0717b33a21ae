/**
 * @module One shard on a worker thread: its own LocalNode (log, replay, actors, group commit, snapshots,
 * retention, webhooks) under DATA_DIR/shards/<n>, executing the operations the main thread forwards over the
 * thread's port and posting back each Reply (after durable) and each live update, in the order they leave. With
 * its own edge (EDGE_THREADS=1) also a read-only copy of the registry's system state (registry-copy.ts), the
 * workspaces' rate slots and the keys' send-buffer slots (rate-slots.ts), kept up to date from the main thread;
 * without, none of them.
 */

import { parentPort, workerData } from 'node:worker_threads'
import type { Config } from '../config.js'
import { SharedRateBuckets } from '../edge/shared-rate-buckets.js'
import { SharedSendBuffers } from '../edge/shared-send-buffers.js'
import type { SystemCommand } from '../ledger/system.js'
import { LocalNode } from './local-node.js'
import type { Operation, Reply } from './operation.js'
import { PortBatch } from './port-batch.js'
import { runProbe } from './probe.js'
import { RegistryCopy } from './registry-copy.js'
import { ThreadShard } from './thread-shard.js'
import type { RateSlotAssigned } from './rate-slots.js'
import type { EdgeState, FromShard, ToShard } from './worker-messages.js'
import type { ThreadEdge } from '../edge/thread-edge.js'

/** How often the replica's route is looked at (cluster mode), in ms. */
const routePollMs = 100
/** How often a `holds` looks for the workspace, in ms. */
const holdsPollMs = 10

const port = parentPort!
const { config, index, edge: edgeState } = workerData as { readonly config: Config; readonly index: number; readonly edge: EdgeState | null }
const toMain = new PortBatch<FromShard>(port)
const post = (message: FromShard) => toMain.post(message)
const registry = edgeState === null ? null : new RegistryCopy(edgeState.system, (line) => post({ kind: 'warn', line }))
/** Each workspace's slot of the shared rate budgets, as the registry assigned it. */
const rateSlots = new Map(edgeState?.rate.slots ?? [])
const rateBuckets = edgeState === null ? null : new SharedRateBuckets(edgeState.rate.pages, (workspace) => rateSlots.get(workspace) ?? -1)
/** Each key's slot of the send-buffer counts, as the registry assigned it. */
const keySlots = new Map(edgeState?.buffers.keys.slots ?? [])
const sendBuffers = edgeState === null ? null : new SharedSendBuffers({
  keyBytesMax: config.streamKeyBufferBytesMax, processBytesMax: config.streamProcessBufferBytesMax, thread: index, threads: config.shards,
  process: edgeState.buffers.process, keyPages: edgeState.buffers.keys.pages, slotOfKey: (keyId) => keySlots.get(keyId) ?? -1,
  // Through the main thread, which sends it on to the thread named.
  ring: (thread, keyId, hops) => post({ kind: 'shed', thread, keyId, hops }),
})

let node: LocalNode
try {
  node = await LocalNode.open(config, {
    clock: () => Date.now(),
    // In cluster mode the shard's log is replicated as the database's shard of the same number.
    clusterShard: index,
    onLogFailure: (error) => post({ kind: 'failed', message: error.message }),
    warn: (line) => post({ kind: 'warn', line }),
    onCommit: (records, durationMs) => post({ kind: 'commit', records, durationMs }),
    onWebhookAttempt: (result) => post({ kind: 'webhook', result }),
    onWebhookGiveUp: () => post({ kind: 'webhook', result: 'gave-up' }),
  })
} catch (error) {
  post({ kind: 'error', name: error instanceof Error ? error.name : 'Error', message: error instanceof Error ? error.message : String(error) })
  toMain.flush()
  port.close()
  throw error
}
node.shard.onUpdate((topic, text) => post({ kind: 'update', topic, text }))
/** Operations this thread's edge forwarded to the main thread, waiting for their replies (by id). */
const forwarding = new Map<number, (reply: Reply) => void>()
let nextForward = 1
const edge = registry === null ? null : new ThreadShard(index, config.shards, node.shard, registry, (operation) => new Promise((resolve) => {
  const id = nextForward++
  forwarding.set(id, resolve)
  post({ kind: 'forward', id, operation })
}))
/** The edge's parts; only a thread started with EDGE_THREADS=1 has them (the main thread asks no other for them). */
function edgeParts(): { edge: ThreadShard; registry: RegistryCopy; rateBuckets: SharedRateBuckets; sendBuffers: SharedSendBuffers } {
  if (edge === null || registry === null || rateBuckets === null || sendBuffers === null) throw new Error(`shard ${index}: this thread has no edge (EDGE_THREADS=0)`)
  return { edge, registry, rateBuckets, sendBuffers }
}
/** GET /metrics on this thread's edge: the main thread adds up every thread's (threaded-server.ts). */
const scrapes = new Map<number, (text: string | null) => void>()
let nextScrape = 1
const scrape = () => new Promise<string | null>((resolve) => {
  const id = nextScrape++
  scrapes.set(id, resolve)
  post({ kind: 'scrape', id })
})
const scraped = (id: number, text: string | null) => {
  const resolve = scrapes.get(id)
  scrapes.delete(id)
  resolve?.(text)
}
/** A command the registry accepted: a new workspace's or key's slot (and the page it opened) first, then the copy. */
const applyRegistry = (command: SystemCommand, rate: RateSlotAssigned | null, keySlot: RateSlotAssigned | null) => {
  const parts = edgeParts()
  if (rate !== null && command.type === 'workspace.create') {
    if (rate.page !== null) parts.rateBuckets.addPage(rate.page)
    rateSlots.set(command.id, rate.slot)
  }
  if (keySlot !== null && command.type === 'key.create') {
    if (keySlot.page !== null) parts.sendBuffers.addKeyPage(keySlot.page)
    keySlots.set(command.id, keySlot.slot)
  }
  parts.registry.apply(command)
}
const forwarded = (id: number, reply: Reply) => {
  const resolve = forwarding.get(id)
  forwarding.delete(id)
  resolve?.(reply)
}
/** The thread's own HTTP edge (EDGE_THREADS=1), loaded only then: without it the thread never loads uWebSockets.js. */
let threadEdge: ThreadEdge | null = null
const edgeStart = async (adminToken: string, clockCell: Float64Array | null) => {
  const { startThreadEdge } = await import('../edge/thread-edge.js')
  const parts = edgeParts()
  // The service's clock when it has one in shared memory (a test's), else the system's.
  const clock = clockCell === null ? () => Date.now() : () => clockCell[0]
  threadEdge = startThreadEdge(config, adminToken, parts.edge, { buckets: parts.rateBuckets, sendBuffers: parts.sendBuffers, scrape, clock })
  return threadEdge.descriptor
}
const answer = (id: number, value: Promise<unknown>) => void value.then((settled) => post({ kind: 'answered', id, value: settled }))
const postStats = () => {
  const stats = node.shard.statsNow()
  post({ kind: 'stats', stats: { ...stats, queueDepths: [...stats.queueDepths] } })
}

/** Whether the shard holds the workspace (a standby: once it followed its creation), looked at every holdsPollMs, waitMs at most. */
async function holds(workspace: string, waitMs: number): Promise<boolean> {
  const deadlineMs = Date.now() + waitMs
  while (!node.runtime.actors.has(workspace)) {
    if (Date.now() >= deadlineMs) return false
    await new Promise((resolve) => setTimeout(resolve, holdsPollMs))
  }
  return true
}

/**
 * Cluster mode: the replica's route (served here, forwarded to the owner's URL, 503 during a takeover) posted to the
 * main thread whenever it changes, so the edge there routes each request by its workspace's shard without a hop.
 * Looked at every routePollMs: the replica's view of the placement changes once a second at most, its serving at a takeover.
 */
let routeTimer: NodeJS.Timeout | null = null
let postedRoute = ''
const postRoute = () => {
  const route = node.route(false)
  const text = JSON.stringify(route)
  if (text === postedRoute) return
  postedRoute = text
  post({ kind: 'route', route })
}
const stopRoutes = () => {
  if (routeTimer !== null) clearInterval(routeTimer)
  routeTimer = null
}

/** One message of a batch, in the order posted: each operation starts synchronously (LocalShard.send), so their order holds. */
function heard(message: ToShard): void {
  switch (message.kind) {
    case 'operation': return void node.shard.send(message.operation as Operation).then((reply) => post({ kind: 'reply', id: message.id, reply }))
    // Applied before `applied` leaves: the registry releases the command's answer only once every thread has it.
    case 'registry': {
      applyRegistry(message.command, message.rate, message.keySlot)
      return post({ kind: 'applied', id: message.id })
    }
    case 'forwarded': return forwarded(message.id, message.reply)
    case 'edge': {
      const { edge } = edgeParts()
      return void edge.send(message.operation as Operation).then((reply) => post({ kind: 'edged', id: message.id, reply, hops: edge.hops }))
    }
    case 'edgeStart': return answer(message.id, edgeStart(message.adminToken, message.clockCell))
    case 'edgeClose': return answer(message.id, threadEdge === null ? Promise.resolve(null) : threadEdge.close(message.graceMs))
    case 'update': return edgeParts().edge.relayedUpdate(message.topic, message.text)
    case 'edgeHops': return answer(message.id, Promise.resolve(edgeParts().edge.hops))
    case 'edgeMetrics': return answer(message.id, threadEdge === null ? Promise.resolve([]) : threadEdge.metrics())
    case 'edgeCounts': return answer(message.id, Promise.resolve(threadEdge === null ? null : threadEdge.counts()))
    case 'shed': return edgeParts().sendBuffers.rung(message.keyId, message.hops)
    case 'scraped': return scraped(message.id, message.text)
    case 'copy': return post({ kind: 'copy', id: message.id, system: edgeParts().registry.system })
    case 'holds': return answer(message.id, holds(message.workspace, message.waitMs))
    case 'start': return node.start()
    case 'stats': return postStats()
    case 'probe': return void runProbe(node.runtime, message.probe).then(
      (value) => post({ kind: 'probed', id: message.id, value }),
      (error: unknown) => post({ kind: 'probed', id: message.id, error: error instanceof Error ? error.message : String(error) }))
    case 'close': {
      stopRoutes()
      return void node.close().then((closed) => {
        post({ kind: 'closed', ...closed })
        toMain.flush()
        port.close()
      })
    }
  }
}

port.on('message', (batch: readonly ToShard[]) => {
  for (const message of batch) heard(message)
})
post({ kind: 'ready', workspaces: [...node.runtime.system.workspaces.keys()], replay: node.replay })
if (config.cluster !== null) {
  postRoute()
  routeTimer = setInterval(postRoute, routePollMs)
  routeTimer.unref()
}
toMain.flush()
