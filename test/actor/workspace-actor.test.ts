/**
 * The workspace actor (src/actor/workspace-actor.ts), over a log that only records: an accepted command is
 * appended once with what it writes beside it, a refused, replayed or conflicting one never; a full log refuses
 * without applying; a command in slices holds the workspace's other requests until it is appended, waiting for
 * room in the log, or answers unavailable when the log has failed; replay re-applies and stops on a refusal.
 */
import t from 'tap'
import { WorkspaceActor, type CommandObserver, type Submitted } from '../../src/actor/workspace-actor.ts'
import type { SliceClock } from '../../src/actor/slice-runner.ts'
import type { StatementInput, WorkspaceCommand } from '../../src/ledger/commands.ts'
import type { CommandLog, SideWrites } from '../../src/log/command-log.ts'
import { stableSerialize } from '../support/state-fingerprint.ts'

const t0 = Date.parse('2026-11-27T12:00:00.000Z')
const envelope = { at_ms: t0, key_id: 'key_a', visibility: null } as const
const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`
const sliceEachYield: SliceClock = { sliceMsMax: 0, nowMs: () => 0 }

/** The log as the actor sees it: appends recorded with their side writes, room and failure settable. */
class RecordingLog {
  readonly records: { record: unknown; side: SideWrites | undefined }[] = []
  room = true
  failure: Error | null = null
  canAppend(): boolean {
    return this.room && this.failure === null
  }
  append(record: unknown, side?: (seq: number) => SideWrites): number {
    if (!this.canAppend()) throw new Error('appended without room')
    const seq = this.records.length + 1
    this.records.push({ record, side: side?.(seq) })
    return seq
  }
  afterDurable(_seq: number, callback: (error: Error | null) => void): void {
    callback(null)
  }
}

function actorOf(): { actor: WorkspaceActor; log: RecordingLog } {
  const log = new RecordingLog()
  const actor = new WorkspaceActor('ws', 'abcdef', log as unknown as CommandLog)
  for (const [name, external] of [['assets:bank', 'DE001'], ['income:sales', null]] as const) {
    const created = actor.submit({ type: 'account.create', name, tags: [], external_id: external, ...envelope })
    if (!created.outcome.ok) throw new Error(created.outcome.message)
  }
  return { actor, log }
}

function post(amount: number, key?: string, fingerprint = 'fp'): WorkspaceCommand {
  return {
    type: 'entry.post', lines: [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }], effective_at_ms: null, description: null, metadata: null,
    rules: 2, ...envelope, ...(key === undefined ? {} : { idempotency: { key, fingerprint } }),
  }
}

/** A posting the ledger refuses: its lines do not sum to zero. */
function unbalanced(): WorkspaceCommand {
  return { ...post(5), lines: [{ account: 'assets:bank', amount: 5 }, { account: 'income:sales', amount: -4 }] } as WorkspaceCommand
}

/** An import of `count` one-day statements, the first on 2026-01-01 plus `first` days. */
function importOf(count: number, first = 0): WorkspaceCommand {
  const statements: StatementInput[] = Array.from({ length: count }, (_, at) => {
    const i = first + at
    const day = new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10)
    return { account: 'DE001', currency: 'USD', statement_ref: `S${i}`, label: `day ${i}`, from: day, to: day, claimed_movement: 0, fingerprint: `fp${i}`, lines: [] }
  })
  return { type: 'statements.import', statements, time_zone: 'UTC', ...envelope }
}

function inSlices(actor: WorkspaceActor, command: WorkspaceCommand, keyed = false): Promise<Submitted> {
  return new Promise((resolve) => actor.submitInSlices(command, keyed, resolve, sliceEachYield))
}

t.test('an accepted command is appended once and moves the applied seq; a refused one is not', async (t) => {
  const { actor, log } = actorOf()
  t.same([actor.lastAppliedSeq, actor.commandsSinceSnapshot, log.records.length], [2, 2, 2])
  const accepted = actor.submit(post(5))
  t.equal(accepted.outcome.ok && accepted.outcome.status, 201)
  t.same(log.records[2].record, { v: 1, workspace: 'ws', command: post(5) })
  t.same([accepted.barrierSeq, actor.lastAppliedSeq, actor.commandsSinceSnapshot], [3, 3, 3])
  const before = stableSerialize(actor.state)
  const refused = actor.submit(unbalanced())
  t.equal(refused.outcome.ok ? 'ok' : refused.outcome.code, 'entry_unbalanced')
  t.same([refused.barrierSeq, log.records.length, actor.commandsSinceSnapshot], [3, 3, 3], 'not logged; it waits for what it read')
  t.equal(stableSerialize(actor.state), before)
})

t.test('with keyed, a stored answer or a conflict is answered and nothing is applied or logged', async (t) => {
  const { actor, log } = actorOf()
  const first = actor.submit(post(5, 'k1'), true)
  t.equal(first.outcome.ok && first.outcome.status, 201)
  const before = stableSerialize(actor.state)
  const again = actor.submit(post(5, 'k1'), true)
  t.same([again.outcome.ok && again.outcome.replayed, again.outcome.ok && again.outcome.json], [true, first.outcome.ok && JSON.stringify(first.outcome.body)])
  const conflict = actor.submit(post(6, 'k1', 'other'), true)
  t.equal(conflict.outcome.ok ? 'ok' : conflict.outcome.code, 'idempotency_conflict')
  t.equal(log.records.length, 3)
  t.equal(stableSerialize(actor.state), before)
  t.equal(actor.idempotency('k1', 'key_a', null, t0).record?.status, 201, 'the lookup the edge makes finds it')
  t.equal(actor.idempotency('k9', 'key_a', null, t0).record, undefined)
})

t.test('a log without room answers unavailable and applies nothing', async (t) => {
  const { actor, log } = actorOf()
  log.room = false
  const before = stableSerialize(actor.state)
  const refused = actor.submit(post(5))
  t.equal(refused.outcome.ok ? 'ok' : refused.outcome.code, 'unavailable')
  t.same([log.records.length, actor.lastAppliedSeq], [2, 2])
  t.equal(stableSerialize(actor.state), before)
})

t.test('the observer is told of accepted commands only; the log gets their side writes', async (t) => {
  const { actor, log } = actorOf()
  const told: string[] = []
  const observer: CommandObserver = { accepted: (_state, command, outcome, completion) => told.push(`${command.type} ${outcome.status} ${completion.barrierSeq}`) }
  actor.observer = observer
  actor.submit(post(5))
  actor.submit(unbalanced())
  t.same(told, ['entry.post 201 3'], 'the refused posting is not told')
  t.equal(log.records[2].side, undefined, 'no subscription: nothing beside the record')
  const hook = actor.submit({ type: 'webhook.create', url: 'https://example.test/h', events: ['entry.posted'], secret, ...envelope })
  const id = hook.outcome.ok ? (hook.outcome.body as { id: string }).id : ''
  actor.submit(post(7))
  const side = log.records[4].side
  t.same(side?.puts.map((put) => put.db), ['outbox', 'deliveries'], 'one delivery written with the posting, item and row')
  t.same(side?.notify, [id])
  actor.submit({ type: 'webhook.delete', webhook: id, ...envelope })
  t.same(log.records[5].side, { puts: [], notify: [id] }, 'a deletion names its subscription, so queued deliveries are dropped')
})

t.test('in slices: busy until appended, other requests wait and run in order after the answer', async (t) => {
  const { actor, log } = actorOf()
  const order: string[] = []
  const done = new Promise<Submitted>((resolve) => actor.submitInSlices(importOf(40), false, (completion) => {
    order.push(`import ${completion.outcome.ok && completion.outcome.status}`)
    resolve(completion)
  }, sliceEachYield))
  t.equal(actor.busy, true)
  actor.whenIdle(() => order.push(`read ${actor.busy}`))
  actor.whenIdle(() => order.push('second'))
  t.same(order, [], 'held')
  const completion = await done
  t.same(order, ['import 201', 'read false', 'second'])
  t.same([completion.barrierSeq, log.records.length, actor.busy], [3, 3, false])
  t.equal(actor.state.windows.windows.length, 40)
  actor.whenIdle(() => order.push('at once'))
  t.equal(order.at(-1), 'at once', 'idle: runs at once')
})

t.test('in slices: a full log at the end is waited for; a failed one answers unavailable and releases', async (t) => {
  const { actor, log } = actorOf()
  log.room = false
  const refusedAtStart = await inSlices(actor, importOf(3))
  t.equal(refusedAtStart.outcome.ok ? 'ok' : refusedAtStart.outcome.code, 'unavailable', 'no room before: nothing applied')
  t.equal(actor.state.windows.windows.length, 0)
  log.room = true
  const waiting = inSlices(actor, importOf(20))
  log.room = false
  let answered = false
  void waiting.then(() => { answered = true })
  for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve))
  t.same([answered, actor.busy], [false, true], 'applied, waiting for room in the log')
  log.room = true
  const completion = await waiting
  t.same([completion.outcome.ok && completion.outcome.status, log.records.length], [201, 3])
  const failing = inSlices(actor, importOf(20, 20))
  log.room = false
  log.failure = new Error('disk gone')
  const failed = await failing
  t.equal(failed.outcome.ok ? 'ok' : failed.outcome.code, 'unavailable')
  t.same([log.records.length, actor.busy], [3, false])
})

t.test('keyed in slices: a stored answer is given without running', async (t) => {
  const { actor, log } = actorOf()
  const command = { ...importOf(2), idempotency: { key: 'imp', fingerprint: 'fp' } } as WorkspaceCommand
  t.equal((await inSlices(actor, command, true)).outcome.ok, true)
  const again = await inSlices(actor, command, true)
  t.same([again.outcome.ok && again.outcome.replayed, log.records.length, actor.busy], [true, 3, false])
})

t.test('replay re-applies a logged command at its seq; a refused replay stops', async (t) => {
  const { actor: source, log } = actorOf()
  source.submit(post(5))
  const copy = new WorkspaceActor('ws', 'abcdef', new RecordingLog() as unknown as CommandLog)
  for (const [index, { record }] of log.records.entries()) copy.replay(index + 10, (record as { command: WorkspaceCommand }).command)
  t.same([copy.lastAppliedSeq, copy.commandsSinceSnapshot], [12, 3])
  t.equal(stableSerialize(copy.state), stableSerialize(source.state))
  t.throws(() => copy.replay(13, unbalanced()), { message: 'replay of log record 13 (entry.post) was rejected: entry_unbalanced' })
  const hook = copy.submit({ type: 'webhook.create', url: 'https://example.test/h', events: ['entry.posted'], secret, ...envelope })
  t.ok(hook.outcome.ok)
  t.equal(copy.replay(20, post(3), false), undefined, 'side writes only when asked')
  t.equal(copy.replay(21, post(3), true)?.puts.length, 2, 'a standby writes the owner\'s deliveries too')
})

t.test('a command submitted while one runs in slices is a programming error', async (t) => {
  const { actor } = actorOf()
  const running = inSlices(actor, importOf(40))
  t.throws(() => actor.submit(post(5)), { message: 'a command submitted while another runs in slices' })
  await running
})

t.test('a new actor\'s state seals and signs; it is given the key it was made with', async (t) => {
  const keyPair = { privateKey: 'p', publicKey: 'q' }
  const actor = new WorkspaceActor('ws', 'abcdef', new RecordingLog() as unknown as CommandLog, undefined, keyPair)
  t.equal(actor.state.sealKey, keyPair)
  t.equal(actor.state.sealHasher?.(['a', 'bc']), actor.state.sealHasher?.(['abc']), 'over the concatenation')
  t.match(actor.state.sealHasher?.(['']), /^[0-9a-f]{64}$/)
  t.type(actor.state.sealSigner, 'function')
  t.equal(actor.query(() => ({ ok: true, status: 200, body: 1 })).barrierSeq, 0)
  t.equal(actor.answer({ ok: true, status: 200, body: 1 }).barrierSeq, 0)
})
