/**
 * src/ledger/outcome.ts on its own: accept makes an accepted outcome of a status and a body, nothing more (no
 * json, events, replay marks or warning of its own); answerText is the text the operation wrote itself when
 * there is one, else the body as JSON, whatever the body (null, an empty string, an array, a class with toJSON).
 */
import t from 'tap'
import { accept, answerText, type Accepted } from '../../src/ledger/outcome.ts'

t.test('accept: ok, the status and the body as given, nothing else', async (t) => {
  const body = { id: 'x', amounts: [1, 2] }
  const outcome = accept(201, body)
  t.same(outcome, { ok: true, status: 201, body })
  t.equal(outcome.body, body, 'the body itself, not a copy')
  t.same(Object.keys(outcome).sort(), ['body', 'ok', 'status'], 'no json, events, replayed or warning unless the operation adds them')
  t.same(accept(204, null), { ok: true, status: 204, body: null })
})

t.test('answerText: the body as JSON, unless the operation wrote its text', async (t) => {
  t.equal(answerText(accept(200, { a: 1, b: 'é' })), '{"a":1,"b":"é"}')
  t.equal(answerText(accept(204, null)), 'null')
  t.equal(answerText(accept(200, '')), '""')
  t.equal(answerText(accept(200, [1, { c: null }])), '[1,{"c":null}]')
  t.equal(answerText(accept(200, { toJSON: () => ({ shown: true }) })), '{"shown":true}', 'a body with toJSON says what it is')
  const written: Accepted = { ...accept(201, { ignored: true }), json: '{"data":[]}' }
  t.equal(answerText(written), '{"data":[]}', 'the text written wins over the body')
  t.equal(answerText({ ...accept(200, { a: 1 }), json: '' }), '', 'even an empty text written')
})
