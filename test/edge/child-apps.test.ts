/**
 * Connections spread over threads by uWebSockets.js (src/edge/child-apps.ts): two worker threads each give their
 * app's descriptor, the listening app adds both, and connections land on both threads in turn, none on the
 * listening thread; once removed, a child gets no more.
 */
import { Worker } from 'node:worker_threads'
import t from 'tap'
import { App, us_listen_socket_close, us_socket_local_port, type us_listen_socket } from 'uWebSockets.js'
import { addChildApp, descriptorOf, removeChildApp, type AppDescriptor } from '../../src/edge/child-apps.ts'

// Each worker serves its thread id until told to stop (its loop kept alive while its app may be handed connections).
const childSource = `
const { parentPort, threadId, workerData } = require('node:worker_threads')
import(workerData.uws).then((uws) => {
  const app = uws.App().any('/*', (res) => { res.end('thread ' + threadId) })
  const alive = setInterval(() => {}, 1000)
  parentPort.on('message', () => { clearInterval(alive); app.close(); parentPort.close() })
  parentPort.postMessage(app.getDescriptor())
})`

function startChild(): Promise<{ worker: Worker; descriptor: AppDescriptor }> {
  const worker = new Worker(childSource, { eval: true, workerData: { uws: import.meta.resolve('uWebSockets.js') } })
  return new Promise((resolve, reject) => {
    worker.once('message', (descriptor: AppDescriptor) => resolve({ worker, descriptor }))
    worker.once('error', reject)
  })
}

async function answersOf(port: number, count: number): Promise<Map<string, number>> {
  const seen = new Map<string, number>()
  for (let index = 0; index < count; index++) {
    // A new connection each time: a connection stays on the thread it landed on.
    const text = await (await fetch(`http://127.0.0.1:${port}/`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(10_000) })).text()
    seen.set(text, (seen.get(text) ?? 0) + 1)
  }
  return seen
}

t.test('connections land on the child apps round-robin, none on the listening thread', async (t) => {
  const children = [await startChild(), await startChild()]
  const listening = App().any('/*', (res) => { res.end('listening thread') })
  for (const child of children) addChildApp(listening, child.descriptor)
  const socket = await new Promise<us_listen_socket>((resolve, reject) => listening.listen('127.0.0.1', 0, (listen) => listen === false ? reject(new Error('cannot listen')) : resolve(listen)))
  const port = us_socket_local_port(socket)
  const ids = children.map((child) => `thread ${child.worker.threadId}`)
  const seen = await answersOf(port, 8)
  t.same([...seen.keys()].sort(), [...ids].sort(), 'both worker threads answered, the listening one never')
  t.same(ids.map((id) => seen.get(id)), [4, 4], 'in turn')

  removeChildApp(listening, children[1].descriptor)
  const after = await answersOf(port, 4)
  t.same([...after.entries()], [[ids[0], 4]], 'a removed child gets no more connections')

  us_listen_socket_close(socket)
  listening.close()
  for (const child of children) {
    child.worker.postMessage('stop')
    await new Promise((done) => child.worker.once('exit', done))
  }
})
