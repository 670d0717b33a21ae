/**
 * Period locks in the core (src/ledger/period-locks.ts, docs/API.md "Period locks"): a window closed with
 * lock_period refuses postings into its period on its accounts (period_locked, naming the window, nothing
 * stored), as does any closed window when the posting carries the workspace's lock_closed setting; a batch
 * item likewise; unlocked, the posting is accepted with a post-close warning. The lock survives a restore,
 * and the span index agrees with a plain scan of the windows on random overlapping periods.
 */
import t from 'tap'
import { factsOf, restoreWorkspace, type WorkspaceFacts } from '../../src/ledger/restore.ts'
import { addLockSpan, lockSpanAt, type LockSpans } from '../../src/ledger/period-locks.ts'
import type { Outcome } from '../../src/ledger/outcome.ts'
import { machine, ok, posting, refused, run, type CommandBody, type Machine } from '../support/workspace-machine.ts'

const tag = 'pl4x'
const nowMs = Date.UTC(2026, 5, 1, 12)
const windowId = (seq: number) => `rec_${tag}00000000${seq}`

/** assets:bank and assets:cash, a sale in March, March's window on assets:bank closed (locked when asked). */
function closedMarch(lock: boolean | undefined): Machine {
  const ctx = machine(['assets:bank', 'assets:cash', 'income:sales'], nowMs, tag)
  ok(run(ctx, posting([['assets:bank', 300], ['income:sales', -300]], '2026-03-10T09:00:00Z')))
  ok(run(ctx, { type: 'window.open', label: 'March', accounts: ['assets:bank'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 300, statement_ref: null, tolerance: 0, time_zone: 'Europe/Berlin' }))
  ok(run(ctx, { type: 'window.transition', window: windowId(1), state: 'closed', reason: 'done', ...(lock === undefined ? {} : { lock_period: lock }) }))
  return ctx
}

const intoMarch = (account = 'assets:bank', extra: Partial<CommandBody> = {}): CommandBody => ({ ...posting([[account, 7], ['income:sales', -7]], '2026-03-31T23:59:59+02:00'), ...extra } as CommandBody)
const warningOf = (outcome: Outcome): string | undefined => (outcome.ok ? outcome.warning : undefined)

t.test('a window closed with lock_period refuses postings into its period on its accounts', async (t) => {
  const ctx = closedMarch(true)
  const closed = ctx.state.windows.windows[0].history.at(-1)
  t.match(closed, { type: 'closed', detail: { lock_period: true } }, 'the close says it locked the period')
  t.equal(closedMarch(undefined).state.windows.windows[0].history.at(-1)?.detail.lock_period, undefined, 'an unlocked close says nothing of it')
  const rejection = refused(t, ctx, intoMarch(), 'period_locked', 'the last second of March in Berlin')
  t.match(rejection.message, windowId(1), 'the message names the window')
  t.match(JSON.stringify(rejection.details), windowId(1), 'the details name the window')
  t.ok(run(ctx, posting([['assets:bank', 5], ['income:sales', -5]], '2026-04-01T00:00:00+02:00')).ok, 'April 1 at 00:00 in Berlin is after the period')
  t.ok(run(ctx, posting([['assets:cash', 5], ['income:sales', -5]], '2026-03-15T00:00:00Z')).ok, 'an account outside the window is not locked')
  t.ok(run(ctx, posting([['assets:bank', 5], ['income:sales', -5]], '2026-02-28T22:59:59Z')).ok, 'the second before the period (Berlin, UTC+1) is not locked')
  const restored: Machine = { ...ctx, state: restoreWorkspace(factsOf(ctx.state)) }
  refused(t, restored, intoMarch(), 'period_locked', 'restored from the facts, the period stays locked')
})

t.test('unlocked, a posting into a closed period is accepted with a post-close warning', async (t) => {
  for (const lock of [undefined, false]) {
    const ctx = closedMarch(lock)
    const outcome = run(ctx, intoMarch())
    t.ok(outcome.ok, `lock_period ${lock}: accepted`)
    t.equal(warningOf(outcome), `post-close ${windowId(1)}`)
    t.equal(warningOf(run(ctx, posting([['assets:bank', 5], ['income:sales', -5]], '2026-04-02T00:00:00Z'))), undefined, 'no warning after the period')
  }
})

t.test('the workspace setting (lock_closed on the command) locks every closed period', async (t) => {
  const ctx = closedMarch(undefined)
  refused(t, ctx, intoMarch('assets:bank', { lock_closed: true } as Partial<CommandBody>), 'period_locked', 'setting on: the unlocked close is locked')
  t.ok(run(ctx, intoMarch('assets:cash', { lock_closed: true } as Partial<CommandBody>)).ok, 'setting on: other accounts are not')
  t.ok(run(ctx, intoMarch('assets:bank', { lock_closed: false } as Partial<CommandBody>)).ok, 'setting off: accepted')
})

t.test('a batch item into a locked period: the atomic batch is refused, per item that item', async (t) => {
  const ctx = closedMarch(true)
  const items = [
    { lines: [{ account: 'assets:bank', amount: 5 }, { account: 'income:sales', amount: -5 }], effective_at_ms: Date.parse('2026-04-05T00:00:00Z'), description: null, metadata: null },
    { lines: [{ account: 'assets:bank', amount: 6 }, { account: 'income:sales', amount: -6 }], effective_at_ms: Date.parse('2026-03-05T00:00:00Z'), description: null, metadata: null },
  ]
  const atomic = refused(t, ctx, { type: 'entry.batch', atomic: true, entries: items, rules: 2 }, 'period_locked', 'atomic batch')
  t.match(atomic.details, [{ path: '/entries/1/effective_at' }], 'the refused item is named')
  const each: any = ok(run(ctx, { type: 'entry.batch', atomic: false, entries: items, rules: 2 }))
  t.equal(each.posted, 1, 'per item: the first is posted')
  t.match(each.items[1], { ok: false, code: 'period_locked' }, 'per item: the second refused with period_locked')
  const unlocked = closedMarch(false)
  t.equal(warningOf(run(unlocked, { type: 'entry.batch', atomic: true, entries: items, rules: 2 })), `post-close ${windowId(1)}`, 'unlocked: the batch warns of its item in March')
  t.equal(warningOf(run(unlocked, { type: 'entry.batch', atomic: true, entries: items.slice(0, 1), rules: 2 })), undefined, 'a batch after the period does not')
})

t.test('a write-off\'s adjustment into a closed period that is not locked warns; locked, it is refused', async (t) => {
  for (const lock of [false, true]) {
    const ctx = closedMarch(lock)
    ok(run(ctx, { type: 'window.open', label: 'cash', accounts: ['assets:cash'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'Europe/Berlin' }))
    ok(run(ctx, { type: 'window.lines.add', window: windowId(2), lines: [{ amount: -4, date: '2026-03-20', reference: null, description: 'fee' }] }))
    const command: CommandBody = { type: 'match.create', window: windowId(2), statement_lines: ['l1'], entries: [], strategy: 'write_off', reason: 'fee', adjustment: { account: 'assets:bank', description: null } }
    if (lock) refused(t, ctx, command, 'period_locked', 'the adjustment account\'s March is locked')
    else t.equal(warningOf(run(ctx, command)), `post-close ${windowId(1)}`, 'the adjustment account\'s March is closed')
  }
})

t.test('overlapping closed windows: a period reopened and closed with a lock', async (t) => {
  const ctx = closedMarch(undefined)
  ok(run(ctx, { type: 'window.open', label: 'late March', accounts: ['assets:bank', 'assets:cash'], from: '2026-03-20', to: '2026-04-10', claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'Europe/Berlin' }))
  ok(run(ctx, { type: 'window.transition', window: windowId(2), state: 'closed', reason: 'done', lock_period: true }))
  t.ok(run(ctx, posting([['assets:bank', 5], ['income:sales', -5]], '2026-03-10T00:00:00Z')).ok, 'March 10 is only in the unlocked window')
  const locked = refused(t, ctx, intoMarch('assets:cash'), 'period_locked', 'cash in the locked late-March window')
  t.match(locked.message, windowId(2))
  refused(t, ctx, posting([['assets:bank', 5], ['income:sales', -5]], '2026-04-05T00:00:00Z'), 'period_locked', 'bank in April, locked window only')
  t.equal(warningOf(run(ctx, posting([['assets:bank', 5], ['income:sales', -5]], '2026-03-02T00:00:00Z'))), `post-close ${windowId(1)}`)
})

t.test('an older snapshot (windows without the lock flag) restores unlocked', async (t) => {
  const ctx = closedMarch(undefined)
  const facts = factsOf(ctx.state)
  const legacy: WorkspaceFacts = { ...facts, windows: facts.windows.map(({ periodLocked: _locked, ...rest }) => rest as typeof facts.windows[number]) }
  const restored: Machine = { ...ctx, state: restoreWorkspace(legacy) }
  t.equal(warningOf(run(restored, intoMarch())), `post-close ${windowId(1)}`)
})

t.test('the span index agrees with a scan of the periods', async (t) => {
  let seed = 7
  const random = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n }
  for (let round = 0; round < 50; round++) {
    const spans: LockSpans = { starts: [], ends: [], windowSeqs: [] }
    const periods: [number, number, number][] = []
    for (let seq = 1; seq <= 1 + random(12); seq++) {
      const start = random(100)
      const end = start + 1 + random(30)
      periods.push([start, end, seq])
      addLockSpan(spans, start, end, seq)
    }
    for (let at = -1; at < 135; at++) {
      const first = periods.find(([start, end]) => start <= at && at < end)
      t.equal(lockSpanAt(spans, at), first === undefined ? 0 : first[2], `round ${round} at ${at}`)
      if (first === undefined && lockSpanAt(spans, at) !== 0) return
    }
  }
})
