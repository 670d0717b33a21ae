/**
 * POST /v2/entries/batch (src/api/routes/entry-batch.ts) called with a built context: the write tokens it asks for
 * (one per entry, at least 1, at most a full batch's); the outer body (1 to 8,190 entries, items unchecked there);
 * entry.batch atomic by default with each item's fields written out; an atomic batch with an item refused for its
 * shape becomes the entry.batch.refusal read (the entries before it, that index, that refusal); per item mode keeps
 * a refused item in place.
 */
import t from 'tap'
import { entryBatchRoute } from '../../../src/api/routes/entry-batch.ts'
import { entryBatchSizeMax } from '../../../src/api/schemas/ledger.ts'
import { entryRulesVersion } from '../../../src/ledger/commands.ts'
import { settingsDefault } from '../../../src/ledger/system.ts'
import { envelope, envelopeKeyed, handled, workspaceRecord } from '../../support/route-context.ts'

const lines = [{ account: 'assets:bank', amount: 1500 }, { account: 'income:sales', amount: -1500 }]
const written = { lines, effective_at_ms: null, description: null, metadata: null }
const locking = workspaceRecord({ ...settingsDefault, lock_closed_periods: true })
const zeroItem = { lines: [{ account: 'a', amount: 0 }, { account: 'b', amount: 0 }] }

t.test('write tokens: one per entry, 1 for a body without entries, a full batch\'s for more than one may hold', async (t) => {
  const tokens = entryBatchRoute.writeTokens!
  t.equal(tokens({ entries: [{}, {}, {}] }), 3)
  t.equal(tokens({ entries: [{}] }), 1)
  for (const body of [{ entries: [] }, {}, null, 'text', { entries: 'many' }]) t.equal(tokens(body), 1, JSON.stringify(body))
  t.equal(tokens({ entries: new Array(entryBatchSizeMax).fill({}) }), entryBatchSizeMax, 'a full batch')
  t.equal(tokens({ entries: new Array(entryBatchSizeMax + 5).fill({}) }), entryBatchSizeMax, 'more: charged as the largest batch, refused next')
  t.equal(entryBatchRoute.body?.limit, 'import', 'the import body limit, not the JSON one')
})

t.test('the outer body: 1 to 8,190 entries of anything (items are checked one by one after)', async (t) => {
  const validate = entryBatchRoute.body!.validate
  t.match(validate({ entries: [] }), { ok: false, code: 'request_invalid' }, 'empty')
  t.match(validate({ entries: [1, 'x'] }), { ok: true }, 'items are not checked here')
  t.match(validate({ entries: new Array(entryBatchSizeMax).fill({}) }), { ok: true }, 'the largest batch')
  t.match(validate({ entries: new Array(entryBatchSizeMax + 1).fill({}) }), { ok: false, code: 'request_invalid' }, 'one more')
  t.match(validate({ entries: [{}], atomic: 'yes' }), { ok: false, code: 'request_invalid' }, 'atomic a boolean')
})

t.test('entry.batch: atomic by default, each item\'s fields written out; lock_closed when the workspace locks', async (t) => {
  const second = { lines, effective_at: '2026-03-29T02:30:00+02:00', description: 'Sale', metadata: { order: '7' } }
  const command = handled(entryBatchRoute, { body: { entries: [{ lines }, second] } }) as Record<string, unknown>
  t.same(command, {
    ...envelope, type: 'entry.batch', atomic: true, rules: entryRulesVersion,
    entries: [written, { lines, effective_at_ms: Date.UTC(2026, 2, 29, 0, 30), description: 'Sale', metadata: { order: '7' } }],
  })
  t.notOk('lock_closed' in command)
  t.same(handled(entryBatchRoute, { body: { entries: [{ lines }], atomic: false }, workspace: locking, envelope: envelopeKeyed }), {
    ...envelopeKeyed, type: 'entry.batch', atomic: false, rules: entryRulesVersion, entries: [written], lock_closed: true,
  })
})

t.test('atomic: the first item refused for its shape becomes the refusal read, with the entries before it', async (t) => {
  const built = handled(entryBatchRoute, { body: { entries: [{ lines }, { lines }, zeroItem, { lines: 'none' }] }, workspace: locking }) as {
    read: { name: string; params: { command: Record<string, unknown>; index: number; refused: unknown } }
  }
  t.equal(built.read.name, 'entry.batch.refusal')
  t.same(built.read.params.command, { ...envelope, entries: [written, written], rules: entryRulesVersion, lock_closed: true }, 'the two before it, as the ledger would check them')
  t.equal(built.read.params.index, 2, 'the first refused, not the last')
  t.match(built.read.params.refused, { ok: false, code: 'request_invalid', details: [{ path: '/lines/0/amount' }, { path: '/lines/1/amount' }] })
  const first = handled(entryBatchRoute, { body: { entries: [{ lines: [lines[0]] }, { lines }] } }) as typeof built
  t.same([first.read.params.index, first.read.params.command.entries], [0, []], 'refused by the item schema (one line): index 0, nothing before')
  t.match(first.read.params.refused, { ok: false, code: 'request_invalid' })
  const late = handled(entryBatchRoute, { body: { entries: [{ lines }, { lines, effective_at: '2026-02-30T00:00:00Z' }], atomic: true } }) as typeof built
  t.match(late.read.params, { index: 1, refused: { code: 'request_invalid', details: [{ path: '/effective_at' }] } }, 'a timestamp that is no date')
})

t.test('per item: a refused item stays in place as its refusal, the others posted', async (t) => {
  const built = handled(entryBatchRoute, { body: { entries: [zeroItem, { lines }, { lines, effective_at: 'now' }, { lines: [] }], atomic: false } }) as {
    type: string; entries: unknown[]
  }
  t.equal(built.type, 'entry.batch')
  t.equal(built.entries.length, 4, 'every item, in request order')
  t.match(built.entries[0], { refused: { ok: false, code: 'request_invalid', details: [{ path: '/lines/0/amount' }] } })
  t.same(built.entries[1], written)
  t.match(built.entries[2], { refused: { code: 'request_invalid', details: [{ path: '/effective_at' }] } })
  t.match(built.entries[3], { refused: { ok: false, code: 'request_invalid' } }, 'fewer than two lines: the item schema')
})
