/**
 * A posting's answer is written as JSON directly (src/ledger/entries.ts entryJson), without the view object:
 * it must be exactly what JSON.stringify made of the view, for any names, amounts, times, descriptions and
 * metadata, and the idempotency record must keep the same text.
 */
import fc from 'fast-check'
import t from 'tap'
import type { EntryPost } from '../../src/ledger/commands.js'
import { entryJson, entryView } from '../../src/ledger/entries.js'
import { createWorkspaceState, Entry, type WorkspaceState } from '../../src/ledger/state.js'
import { executeWorkspace } from '../../src/ledger/workspace.js'

const atMs = Date.parse('2026-11-22T12:00:00.000Z')
const segment = fc.string({ minLength: 1, maxLength: 8, unit: fc.constantFrom('a', 'B', '.', '-', '_', '0') })
const text = fc.string({ maxLength: 40, unit: fc.oneof(fc.constantFrom('"', '\\', '\u2028', '\n', '\u0000', 'é'), fc.string({ minLength: 1, maxLength: 1, unit: 'binary' })) })

function workspace(names: readonly string[]): WorkspaceState {
  const state = createWorkspaceState('ws', 'abcdef')
  for (const name of names) {
    const created = executeWorkspace(state, { type: 'account.create', name, tags: [], at_ms: atMs, key_id: 'key_test', visibility: null })
    if (!created.ok) throw new Error(`account ${name}: ${created.code}`)
  }
  return state
}

t.test('the JSON of an accepted posting is JSON.stringify of its view, byte for byte', async (t) => {
  fc.assert(fc.property(
    fc.uniqueArray(segment, { minLength: 2, maxLength: 4 }),
    fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    fc.option(fc.integer({ min: 0, max: 253_402_300_799_999 }), { nil: null }),
    fc.option(text, { nil: null }),
    fc.option(fc.dictionary(text, text, { maxKeys: 4 }), { nil: null }),
    fc.option(text, { nil: undefined }),
    (segments, amount, effectiveAtMs, description, metadata, key) => {
      const names = segments.map((name) => `assets:${name}`)
      const state = workspace(names)
      const command: EntryPost = {
        type: 'entry.post', lines: [{ account: names[0], amount }, { account: names[1], amount: -amount }], effective_at_ms: effectiveAtMs,
        description, metadata, rules: 2, at_ms: atMs, key_id: 'key_test', visibility: null,
        ...(key === undefined || key === '' ? {} : { idempotency: { key, fingerprint: 'f' } }),
      }
      const outcome = executeWorkspace(state, command)
      if (!outcome.ok) throw new Error(`rejected: ${outcome.code} ${outcome.message}`)
      const entry = state.entries[0]
      const expected = JSON.stringify(entryView(state, entry))
      if (outcome.json !== expected) throw new Error(`json ${outcome.json} is not ${expected}`)
      if (JSON.stringify(outcome.body) !== expected) throw new Error('body differs from its JSON')
      if (command.idempotency !== undefined && state.idempotency.get(command.idempotency.key)?.body !== expected) throw new Error('the idempotency record keeps other text')
    },
  ), { numRuns: 300 })
  t.pass('300 random postings')
})

t.test('fields a record from before them lacks are left out, as JSON.stringify leaves them out', async (t) => {
  const state = workspace(['assets:bank', 'income:sales'])
  const outcome = executeWorkspace(state, { type: 'entry.post', lines: [{ account: 'assets:bank', amount: 5 }, { account: 'income:sales', amount: -5 }], effective_at_ms: null, description: null, metadata: null, at_ms: atMs, key_id: 'key_test', visibility: null })
  t.ok(outcome.ok)
  const posted = state.entries[0]
  const old = new Entry(posted.seq, posted.store, posted.at, undefined as unknown as null, undefined as unknown as null)
  t.equal(entryJson(state, old), JSON.stringify(entryView(state, old)))
  t.same(JSON.parse(entryJson(state, old)), { id: old.id, lines: [{ account: 'assets:bank', account_id: state.accounts[0].id, currency: 'USD', amount: 5 }, { account: 'income:sales', account_id: state.accounts[1].id, currency: 'USD', amount: -5 }], effective_at: '2026-11-22T12:00:00.000Z', posted_at: '2026-11-22T12:00:00.000Z' })
})
