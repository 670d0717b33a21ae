/** Tests for the shutdown drain (src/edge/drain.ts) without a server: what it waits for, and what it reports. */
import { performance } from 'node:perf_hooks'
import t from 'tap'
import { Drain, idleCloseGraceMs } from '../../src/edge/drain.ts'

/** close() with its callbacks recorded in `calls`; `during` runs once the drain has started. */
async function closeWith(drain: Drain, graceMs: number, during: () => void = () => {}, calls: string[] = []) {
  const closing = drain.close(graceMs, () => calls.push('stop listening'), () => calls.push('close all'))
  t.equal(drain.closing, true, 'answers ask for Connection: close from the start')
  during()
  const report = await closing
  return { report, calls }
}

t.test('nothing open: stops listening and closes at once', async (t) => {
  const { report, calls } = await closeWith(new Drain(), 10_000)
  t.same(calls, ['stop listening', 'close all'])
  t.same(report, { inFlightCount: 0, refusedCount: 0, abandonedCount: 0, connectionsClosedCount: 0 })
})

t.test('a request in flight is answered before the connections are closed', async (t) => {
  const drain = new Drain()
  drain.connectionsChanged(+1)
  drain.requestStarted()
  const calls: string[] = []
  const { report } = await closeWith(drain, 10_000, () => {
    setTimeout(() => {
      t.same(calls, ['stop listening'], 'nothing closed while the request is in flight')
      drain.requestSettled()
      drain.connectionsChanged(-1) // its answer said Connection: close
    }, 300)
  }, calls)
  t.same(calls, ['stop listening', 'close all'])
  t.same(report, { inFlightCount: 1, refusedCount: 0, abandonedCount: 0, connectionsClosedCount: 0 })
})

t.test('a request arriving on an open connection is counted as refused; an idle connection is closed after the idle grace', async (t) => {
  const drain = new Drain()
  drain.connectionsChanged(+1)
  drain.connectionsChanged(+1)
  const startedMs = performance.now()
  const { report } = await closeWith(drain, 10_000, () => {
    drain.requestStarted()
    drain.requestRefused()
    drain.requestSettled()
    drain.connectionsChanged(-1)
  })
  const closedAfterMs = performance.now() - startedMs
  t.same(report, { inFlightCount: 0, refusedCount: 1, abandonedCount: 0, connectionsClosedCount: 1 }, 'the other connection sent nothing: closed by the drain')
  t.ok(closedAfterMs >= idleCloseGraceMs, `not before idleCloseGraceMs (${Math.round(closedAfterMs)} ms)`)
})

t.test('a grace shorter than idleCloseGraceMs bounds the idle connections\' too', async (t) => {
  const drain = new Drain()
  drain.connectionsChanged(+1)
  const { report, calls } = await closeWith(drain, 50)
  t.same(calls, ['stop listening', 'close all'])
  t.same(report, { inFlightCount: 0, refusedCount: 0, abandonedCount: 0, connectionsClosedCount: 1 })
})

t.test('the grace bounds the wait: a request still unanswered is reported', async (t) => {
  const drain = new Drain()
  drain.connectionsChanged(+1)
  drain.requestStarted()
  const { report, calls } = await closeWith(drain, 50)
  t.same(calls, ['stop listening', 'close all'])
  t.same(report, { inFlightCount: 1, refusedCount: 0, abandonedCount: 1, connectionsClosedCount: 1 })
})
