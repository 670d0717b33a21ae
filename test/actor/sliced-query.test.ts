/**
 * A read in slices (proposals): the actor resumes the run until the slice's time is spent (an injected
 * clock here, so nothing depends on the machine's speed), one slice per turn of the event loop, so work
 * queued meanwhile, I/O included, runs between slices.
 */
import net from 'node:net'
import t from 'tap'
import { WorkspaceActor } from '../../src/actor/workspace-actor.ts'
import type { SliceClock } from '../../src/actor/slice-runner.ts'
import type { CommandLog } from '../../src/log/command-log.ts'
import { accept, type Outcome } from '../../src/ledger/outcome.ts'

/** Only what a completion needs of the log: everything is durable at once. */
const log = { afterDurable: (_seq: number, callback: (error: Error | null) => void) => callback(null), canAppend: () => true } as unknown as CommandLog

/** Every yield point ends a slice. */
const sliceEachYield: SliceClock = { sliceMsMax: 0, nowMs: () => 0 }

/** A clock that moves 1 ms each time it is read. */
function steppingClock(sliceMsMax: number): SliceClock {
  let nowMs = 0
  return { sliceMsMax, nowMs: () => nowMs++ }
}

function runSliced(actor: WorkspaceActor, slices: () => Generator<undefined, Outcome, undefined>, clock: SliceClock): Promise<Outcome> {
  return new Promise((resolve) => actor.querySliced(slices, (completion) => resolve(completion.outcome), clock))
}

t.test('slices alternate with other work; the answer comes once the run returns', async (t) => {
  const actor = new WorkspaceActor('ws', 'abcdef', log)
  const order: string[] = []
  function* slices(): Generator<undefined, Outcome, undefined> {
    for (let slice = 0; slice < 3; slice++) {
      order.push(`slice ${slice}`)
      setImmediate(() => order.push(`other ${slice}`))
      yield
    }
    return accept(200, { done: true })
  }
  const answer = runSliced(actor, slices, sliceEachYield)
  order.push('returned')
  t.same(await answer, { ok: true, status: 200, body: { done: true } })
  t.same(order, ['slice 0', 'returned', 'other 0', 'slice 1', 'other 1', 'slice 2', 'other 2'], 'the first slice runs at once, each next one after the work queued before it')
})

t.test('a slice runs yield points until its time is spent, not one per slice', async (t) => {
  const actor = new WorkspaceActor('ws', 'abcdef', log)
  const order: string[] = []
  function* slices(): Generator<undefined, Outcome, undefined> {
    for (let point = 0; point < 7; point++) {
      order.push(`point ${point}`)
      setImmediate(() => order.push(`other after ${point}`))
      yield
    }
    return accept(200, { done: true })
  }
  await runSliced(actor, slices, steppingClock(3))
  // The clock is read at the start of a slice and after each resume: 3 ms are spent after the third
  // resume. The third slice's second resume returns the answer, before the work queued after point 6.
  t.same(order, [
    'point 0', 'point 1', 'point 2', 'other after 0', 'other after 1', 'other after 2',
    'point 3', 'point 4', 'point 5', 'other after 3', 'other after 4', 'other after 5',
    'point 6',
  ])
})

t.test('I/O that arrives while a run goes on is served between its slices (the continuation does not run before the poll)', async (t) => {
  const actor = new WorkspaceActor('ws', 'abcdef', log)
  let received = false
  const server = net.createServer((socket) => socket.on('data', () => { received = true }))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1')
  await new Promise<void>((resolve) => client.on('connect', resolve))
  t.teardown(() => {
    client.destroy()
    server.close()
  })
  const pointsMax = 1_000_000
  function* slices(): Generator<undefined, Outcome, undefined> {
    client.write('a read')
    let points = 0
    while (!received && points < pointsMax) {
      points++
      yield
    }
    return accept(200, { received, points })
  }
  const outcome = await runSliced(actor, slices, sliceEachYield)
  t.equal((outcome as { body: { received: boolean } }).body.received, true, 'the data arrived before the run ended')
})
