/**
 * @module One shard on a worker thread: its own LocalNode (log, replay, actors, group commit, snapshots,
 * retention, webhooks) under DATA_DIR/shards/<n>, executing the operations the main thread forwards over the
 * thread's port and posting back each Reply (after durable) and each live update, in the order they leave; and a
 * read-only copy of the registry's system state (registry-copy.ts) kept up to date from the main thread.
 */

import { parentPort, workerData } from 'node:worker_threads'
import type { Config } from '../config.js'
import type { SystemState } from '../ledger/system.js'
import { LocalNode } from './local-node.js'
import type { Operation, Reply } from './operation.js'
import { PortBatch } from './port-batch.js'
import { runProbe } from './probe.js'
import { RegistryCopy } from './registry-copy.js'
import { ThreadShard } from './thread-shard.js'
import type { FromShard, ToShard } from './worker-messages.js'
import type { ThreadEdge } from '../edge/thread-edge.js'

/** How often the replica's route is looked at (cluster mode), in ms. */
const routePollMs = 100
/** How often a `holds` looks for the workspace, in ms. */
const holdsPollMs = 10

const port = parentPort!
const { config, index, system } = workerData as { readonly config: Config; readonly index: number; readonly system: SystemState }
const toMain = new PortBatch<FromShard>(port)
const post = (message: FromShard) => toMain.post(message)
const registry = new RegistryCopy(system, (line) => post({ kind: 'warn', line }))

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
const edge = new ThreadShard(index, config.shards, node.shard, registry, (operation) => new Promise((resolve) => {
  const id = nextForward++
  forwarding.set(id, resolve)
  post({ kind: 'forward', id, operation })
}))
const forwarded = (id: number, reply: Reply) => {
  const resolve = forwarding.get(id)
  forwarding.delete(id)
  resolve?.(reply)
}
/** The thread's own HTTP edge (EDGE_THREADS=1), loaded only then: without it the thread never loads uWebSockets.js. */
let threadEdge: ThreadEdge | null = null
const edgeStart = async (adminToken: string) => {
  const { startThreadEdge } = await import('../edge/thread-edge.js')
  threadEdge = startThreadEdge(config, adminToken, edge)
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
      registry.apply(message.command)
      return post({ kind: 'applied', id: message.id })
    }
    case 'forwarded': return forwarded(message.id, message.reply)
    case 'edge': return void edge.send(message.operation as Operation).then((reply) => post({ kind: 'edged', id: message.id, reply, hops: edge.hops }))
    case 'edgeStart': return answer(message.id, edgeStart(message.adminToken))
    case 'edgeClose': return answer(message.id, threadEdge === null ? Promise.resolve(null) : threadEdge.close(message.graceMs))
    case 'update': return edge.relayedUpdate(message.topic, message.text)
    case 'edgeHops': return answer(message.id, Promise.resolve(edge.hops))
    case 'copy': return post({ kind: 'copy', id: message.id, system: registry.system })
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
