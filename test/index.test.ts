/**
 * The library's entry point (src/index.ts): exactly the values a user of the package imports, each the one its own
 * module defines (not a copy), so `instanceof` holds across them; everything else it names is a type.
 */
import t from 'tap'
import * as trueup from '../src/index.ts'
import { createServer } from '../src/embedded/server.ts'
import { Ledger } from '../src/embedded/ledger.ts'
import { TrueupError } from '../src/embedded/trueup-error.ts'
import { errorCatalogue } from '../src/errors.ts'
import { StartRefused } from '../src/start-refused.ts'

t.test('the values exported: these five and no others', async (t) => {
  t.same(Object.keys(trueup).sort(), ['Ledger', 'StartRefused', 'TrueupError', 'createServer', 'errorCatalogue'])
})

t.test('each is its module\'s own, so instanceof and identity hold across imports', async (t) => {
  t.equal(trueup.createServer, createServer)
  t.equal(trueup.Ledger, Ledger)
  t.equal(trueup.TrueupError, TrueupError)
  t.equal(trueup.StartRefused, StartRefused)
  t.equal(trueup.errorCatalogue, errorCatalogue)
  t.ok(new StartRefused('refused') instanceof trueup.StartRefused)
  t.type(trueup.createServer, 'function')
  t.type(trueup.Ledger, 'function')
})

t.test('the error catalogue a user matches codes against holds the codes the service answers', async (t) => {
  const codes = Object.keys(trueup.errorCatalogue)
  for (const code of ['not_found', 'request_invalid', 'idempotency_conflict', 'unavailable', 'statement_invalid', 'account_unknown', 'entry_unbalanced']) {
    t.ok(codes.includes(code), code)
  }
})
