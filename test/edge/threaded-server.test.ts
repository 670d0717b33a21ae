/**
 * HTTP on every shard's thread (src/edge/threaded-server.ts), with scripted edge threads whose apps live on the
 * test's thread: the listening app on 127.0.0.1 hands connections to the threads' apps in turn and serves none
 * itself; updates reach every other thread, sheds the thread they name; a scrape is the main metrics and every
 * thread's added up; counts and drain reports are added; a port that cannot be had removes the apps and closes the edges.
 */
import net from 'node:net'
import t from 'tap'
import { App, type TemplatedApp } from 'uWebSockets.js'
import { descriptorOf, type AppDescriptor } from '../../src/edge/child-apps.ts'
import type { DrainReport } from '../../src/edge/drain.ts'
import type { MetricJson } from '../../src/edge/metrics-sum.ts'
import { Metrics } from '../../src/edge/metrics.ts'
import type { EdgeCounts } from '../../src/edge/stream.ts'
import { startThreadedServer, type EdgeThread } from '../../src/edge/threaded-server.ts'

interface Scripted extends EdgeThread {
  readonly index: number
  readonly app: TemplatedApp
  readonly relayed: string[]
  readonly shedsRelayed: string[]
  readonly started: unknown[][]
  readonly closed: number[]
  render: (() => Promise<string>) | null
  emitUpdate: ((topic: string, text: string) => void) | null
  emitShed: ((thread: number, keyId: string | null, hops: number) => void) | null
}

function requestsCounter(value: number): MetricJson {
  return { name: 'trueup_test_requests_total', help: 'requests', type: 'counter', aggregator: 'sum', values: [{ value, labels: {} }] } as unknown as MetricJson
}

function scriptedThread(index: number, report: DrainReport | null): Scripted {
  const app = App().any('/*', (res) => { res.end(`thread ${index}`) })
  const thread: Scripted = {
    index, app, relayed: [], shedsRelayed: [], started: [], closed: [], render: null, emitUpdate: null, emitShed: null,
    startEdge: async (adminToken, clockCell) => { thread.started.push([adminToken, clockCell]); return descriptorOf(app) as AppDescriptor },
    closeEdge: async (graceMs) => { thread.closed.push(graceMs); return report },
    edgeHops: async () => ({ local: index, forwarded: 1 }),
    edgeMetrics: async () => [requestsCounter(index + 1)],
    edgeCounts: async (): Promise<EdgeCounts> => ({ sessions: [], closedCount: index + 1, totalBytes: 100 + index, filesReadInWorker: 10 }),
    answerScrapes: (render) => { thread.render = render },
    onUpdate: (listener) => { thread.emitUpdate = listener },
    relayUpdate: (topic, text) => { thread.relayed.push(`${topic} ${text}`) },
    onShed: (listener) => { thread.emitShed = listener },
    relayShed: (keyId, hops) => { thread.shedsRelayed.push(`${keyId} ${hops}`) },
  }
  return thread
}

const report = (count: number): DrainReport => ({ inFlightCount: count, refusedCount: count, abandonedCount: 0, connectionsClosedCount: 1 })
const metrics = new Metrics({ groupCommitRecordsMax: 64, eventLoopLagResolutionMs: 10, processMetrics: false })

t.test('connections go to the threads\' apps in turn; updates, sheds, scrapes, counts, hops; close adds the reports', async (t) => {
  const threads = [scriptedThread(0, report(2)), scriptedThread(1, null), scriptedThread(2, report(3))]
  let listened = 0
  const clockCell = new Float64Array(new SharedArrayBuffer(8))
  const server = await startThreadedServer(threads, { host: '127.0.0.1', port: 0, adminToken: 'admin-t', metrics, clockCell, beforeListen: () => { listened++ } })
  t.equal(listened, 1)
  t.equal(server.stream, null, 'no stream endpoint on the listening thread')
  for (const thread of threads) t.same(thread.started, [['admin-t', clockCell]])
  const seen = new Map<string, number>()
  for (let index = 0; index < 9; index++) {
    const text = await (await fetch(`http://127.0.0.1:${server.port}/`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(5_000) })).text()
    seen.set(text, (seen.get(text) ?? 0) + 1)
  }
  t.same([...seen.keys()].sort(), ['thread 0', 'thread 1', 'thread 2'], 'every thread answers; the listening app none')

  threads[1].emitUpdate!('r:w:rec_1', '{"x":1}')
  t.same(threads.map((thread) => thread.relayed), [['r:w:rec_1 {"x":1}'], [], ['r:w:rec_1 {"x":1}']], 'to every other thread, not back')
  threads[0].emitShed!(2, 'key_1', 3)
  threads[0].emitShed!(7, 'key_x', 1)
  t.same(threads.map((thread) => thread.shedsRelayed), [[], [], ['key_1 3']], 'to the thread named; a thread that is none: nowhere')

  t.ok(threads.every((thread) => thread.render !== null))
  const text = await threads[2].render!()
  t.match(text, /trueup_test_requests_total 6\b/, 'each thread\'s counter added: 1 + 2 + 3')
  t.same(await server.edgeHops(), [{ local: 0, forwarded: 1 }, { local: 1, forwarded: 1 }, { local: 2, forwarded: 1 }])
  const counts = await server.edgeCounts()
  t.equal(counts.closedCount, 6)
  t.equal(counts.totalBytes, 100, 'the shared bytes as the first thread reads them, not added')
  t.ok(counts.filesReadInWorker >= 30, 'every thread\'s files and the main thread\'s')

  const added = await server.close(250)
  t.same(threads.map((thread) => thread.closed), [[250], [250], [250]])
  t.same(added, { inFlightCount: 5, refusedCount: 5, abandonedCount: 0, connectionsClosedCount: 2 }, 'a thread without a report counts nothing')
  const refused = await new Promise<boolean>((resolve) => {
    const socket = net.connect(server.port, '127.0.0.1')
    socket.once('error', () => resolve(true))
    socket.once('connect', () => { socket.destroy(); resolve(false) })
  })
  t.ok(refused, 'no longer listening')
})

t.test('a port that cannot be had: the start fails, every edge closed at once', async (t) => {
  const holder = net.createServer()
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { holder.close() })
  const port = (holder.address() as net.AddressInfo).port
  const threads = [scriptedThread(0, null), scriptedThread(1, null)]
  await t.rejects(startThreadedServer(threads, { host: '127.0.0.1', port, adminToken: 'a', metrics, clockCell: null, beforeListen: () => {} }))
  t.same(threads.map((thread) => thread.closed), [[0], [0]])
})
