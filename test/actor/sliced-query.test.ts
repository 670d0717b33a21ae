/** A read in slices (proposals): the actor runs one slice per turn of the event loop, so work queued meanwhile runs between slices. */
import t from 'tap'
import { WorkspaceActor } from '../../src/actor/workspace-actor.ts'
import type { CommandLog } from '../../src/log/command-log.ts'
import { accept, type Outcome } from '../../src/ledger/outcome.ts'

/** Only what a completion needs of the log: everything is durable at once. */
const log = { afterDurable: (_seq: number, callback: (error: Error | null) => void) => callback(null), canAppend: () => true } as unknown as CommandLog

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
  const completion = await new Promise<{ outcome: Outcome }>((resolve) => {
    actor.querySliced(slices, resolve)
    order.push('returned')
  })
  t.same(order, ['slice 0', 'returned', 'other 0', 'slice 1', 'other 1', 'slice 2', 'other 2'], 'the first slice runs at once, each next one after the work queued before it')
  t.same(completion.outcome, { ok: true, status: 200, body: { done: true } })
})
