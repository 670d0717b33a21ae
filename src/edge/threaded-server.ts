/**
 * @module HTTP on every shard's thread (EDGE_THREADS=1, SHARDS > 1): each shard's thread builds its edge
 * (thread-edge.ts) and gives its app's descriptor; the main thread's listening app adds them all (child-apps.ts)
 * and hands each connection it accepts to one of them in turn, serving none itself. At shutdown the listening
 * socket closes, every thread drains its own connections, and each app is removed before its thread ends (a
 * removed app is never handed a connection; one whose thread has ended would crash the process). A scrape of
 * /metrics on any thread is answered here: the main thread's metrics (the process's, the shards' gauges, group
 * commits, webhooks) and every thread's edge's (its requests) added up (metrics-sum.ts).
 */

import { App, us_listen_socket_close, us_socket_local_port } from 'uWebSockets.js'
import type { EdgeHops } from '../shard/thread-shard.js'
import { addChildApp, removeChildApp, type AppDescriptor } from './child-apps.js'
import type { DrainReport } from './drain.js'
import type { Metrics } from './metrics.js'
import { sumMetrics, type MetricJson } from './metrics-sum.js'
import { listenOn, type RunningServer } from './server.js'
import type { EdgeCounts } from './stream.js'
import { filesReadInWorker } from '../api/statement-worker-pool.js'

/** A shard's thread as the listening thread sees it (worker-shard.ts). */
export interface EdgeThread {
  startEdge(adminToken: string, clockCell: Float64Array | null): Promise<AppDescriptor>
  closeEdge(graceMs: number): Promise<DrainReport | null>
  edgeHops(): Promise<EdgeHops>
  edgeMetrics(): Promise<MetricJson[]>
  edgeCounts(): Promise<EdgeCounts>
  answerScrapes(render: () => Promise<string>): void
  onUpdate(listener: (topic: string, text: string) => void): void
  relayUpdate(topic: string, text: string): void
  onShed(listener: (thread: number, keyId: string | null, hops: number) => void): void
  relayShed(keyId: string | null, hops: number): void
}

/** A thread's ring over a send-buffer bound (shared-send-buffers.ts) sent on to the thread it names. */
function relaySheds(threads: readonly EdgeThread[]): void {
  for (const from of threads) from.onShed((thread, keyId, hops) => threads[thread]?.relayShed(keyId, hops))
}

/** Every thread's sessions and counts as one; the unread bytes are counted in memory they share (the first thread's reading). */
async function edgeCounts(threads: readonly EdgeThread[], mainFilesRead: number): Promise<EdgeCounts> {
  const all = await Promise.all(threads.map((thread) => thread.edgeCounts()))
  return {
    sessions: all.flatMap((counts) => counts.sessions), closedCount: all.reduce((sum, counts) => sum + counts.closedCount, 0),
    totalBytes: all[0]?.totalBytes ?? 0, filesReadInWorker: all.reduce((sum, counts) => sum + counts.filesReadInWorker, mainFilesRead),
  }
}

/** Each shard's live updates relayed to every other thread, so a session on any thread hears every workspace's. */
function relayUpdates(threads: readonly EdgeThread[]): void {
  for (const from of threads) {
    const others = threads.filter((thread) => thread !== from)
    from.onUpdate((topic, text) => { for (const thread of others) thread.relayUpdate(topic, text) })
  }
}

function added(reports: readonly (DrainReport | null)[]): DrainReport {
  const sum = (count: (report: DrainReport) => number) => reports.reduce((total, report) => total + (report === null ? 0 : count(report)), 0)
  return {
    inFlightCount: sum((report) => report.inFlightCount), refusedCount: sum((report) => report.refusedCount),
    abandonedCount: sum((report) => report.abandonedCount), connectionsClosedCount: sum((report) => report.connectionsClosedCount),
  }
}

/** Every scrape, on whichever thread: the main thread's metrics and each thread's edge's, as one text. */
function answerScrapes(threads: readonly EdgeThread[], metrics: Metrics): void {
  const render = async () => {
    const parts = await Promise.all([metrics.registry.getMetricsAsJSON(), ...threads.map((thread) => thread.edgeMetrics())])
    return sumMetrics(parts).metrics()
  }
  for (const thread of threads) thread.answerScrapes(render)
}

export interface ThreadedServerOptions {
  readonly host: string
  readonly port: number
  readonly adminToken: string
  /** The main thread's metrics, added to every thread's edge's on each scrape. */
  readonly metrics: Metrics
  /** The service's clock in shared memory, for every thread's edge; null: the system clock. */
  readonly clockCell: Float64Array | null
  readonly beforeListen: () => void
}

export async function startThreadedServer(threads: readonly EdgeThread[], options: ThreadedServerOptions): Promise<RunningServer> {
  relayUpdates(threads)
  relaySheds(threads)
  answerScrapes(threads, options.metrics)
  const descriptors = await Promise.all(threads.map((thread) => thread.startEdge(options.adminToken, options.clockCell)))
  const listening = App()
  for (const descriptor of descriptors) addChildApp(listening, descriptor)
  const removeAll = () => {
    for (const descriptor of descriptors) removeChildApp(listening, descriptor)
    listening.close()
  }
  let socket
  try {
    // Called in the same turn as the bind (the port held until then is released: nothing else runs in between).
    options.beforeListen()
    socket = await listenOn(listening, options.host, options.port)
  } catch (error) {
    removeAll()
    await Promise.all(threads.map((thread) => thread.closeEdge(0)))
    throw error
  }
  const listenSocket = socket
  return {
    port: us_socket_local_port(listenSocket),
    stream: null,
    edgeHops: () => Promise.all(threads.map((thread) => thread.edgeHops())),
    edgeCounts: () => edgeCounts(threads, filesReadInWorker()),
    close: async (graceMs) => {
      us_listen_socket_close(listenSocket)
      const reports = await Promise.all(threads.map((thread) => thread.closeEdge(graceMs)))
      removeAll()
      return added(reports)
    },
  }
}
