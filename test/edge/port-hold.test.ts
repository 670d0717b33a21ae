/**
 * The listen address held before start-up (src/edge/port-hold.ts), on 127.0.0.1: a free port is held (nothing
 * else can bind it, a connection to it is closed at once) until released, then it can be bound; a port in use
 * refuses with StartRefused naming host, port and why; port 0 holds nothing.
 */
import net from 'node:net'
import t from 'tap'
import { holdPort, listenRefused } from '../../src/edge/port-hold.ts'
import { StartRefused } from '../../src/start-refused.ts'

function listen(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => resolve(server))
  })
}

function close(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()))
}

async function freePort(): Promise<number> {
  const server = await listen(0)
  const { port } = server.address() as net.AddressInfo
  await close(server)
  return port
}

t.test('a held port cannot be bound by another until released; then it can', async (t) => {
  const port = await freePort()
  const hold = await holdPort('127.0.0.1', port)
  t.not(hold, null)
  await t.rejects(listen(port), { code: 'EADDRINUSE' }, 'taken while held')
  await t.rejects(holdPort('127.0.0.1', port), new StartRefused(`cannot listen on 127.0.0.1:${port}: address in use`))
  hold!.release()
  hold!.release()
  const server = await listen(port)
  t.pass('bound after the release (released twice: no error)')
  await close(server)
})

t.test('a connection to the held port is closed at once: nothing is served', async (t) => {
  const port = await freePort()
  const hold = await holdPort('127.0.0.1', port)
  t.teardown(() => hold!.release())
  const closedMs = await new Promise<number>((resolve, reject) => {
    const startedMs = Date.now()
    const socket = net.connect(port, '127.0.0.1')
    socket.on('error', () => resolve(Date.now() - startedMs))
    socket.on('close', () => resolve(Date.now() - startedMs))
    socket.on('data', () => reject(new Error('the placeholder answered')))
    setTimeout(() => { socket.destroy(); reject(new Error('still open after 5 s')) }, 5_000).unref()
  })
  t.ok(closedMs < 5_000, `closed after ${closedMs} ms`)
})

t.test('a port in use refuses the start with the address and the reason', async (t) => {
  const server = await listen(0)
  t.teardown(() => close(server))
  const { port } = server.address() as net.AddressInfo
  const refused = await holdPort('127.0.0.1', port).then(() => null, (error: unknown) => error)
  t.ok(refused instanceof StartRefused)
  t.equal((refused as Error).message, `cannot listen on 127.0.0.1:${port}: address in use`)
})

t.test('port 0 holds nothing', async (t) => {
  t.equal(await holdPort('127.0.0.1', 0), null)
})

t.test('the refusal words for each bind error', async (t) => {
  const errno = (code: string) => Object.assign(new Error(`${code}: listen failed\nmore`), { code })
  t.equal(listenRefused('10.0.0.9', 8080, errno('EADDRNOTAVAIL')).message, 'cannot listen on 10.0.0.9:8080: address not available on this machine')
  t.equal(listenRefused('0.0.0.0', 80, errno('EACCES')).message, 'cannot listen on 0.0.0.0:80: permission denied')
  t.equal(listenRefused('::1', 1, errno('EINVAL')).message, 'cannot listen on ::1:1: EINVAL: listen failed')
})
