/** TrueupError (src/embedded/trueup-error.ts): a rejection of the catalogue as an Error, with its code, status, message and details. */
import t from 'tap'
import { TrueupError } from '../../src/embedded/trueup-error.ts'
import { reject, statusOf } from '../../src/errors.ts'

t.test('code, status, message and details of the rejection', async (t) => {
  const details = [{ path: '/lines/1/amount', message: 'must not be 0' }]
  const error = new TrueupError(reject('request_invalid', 'Bad lines.', details), statusOf('request_invalid'))
  t.ok(error instanceof Error)
  t.equal(error.name, 'TrueupError')
  t.equal(error.message, 'Bad lines.')
  t.equal(error.code, 'request_invalid')
  t.equal(error.status, 400)
  t.same(error.details, details)
  t.match(String(error), /^TrueupError: Bad lines\./)
  t.match(error.stack ?? '', /TrueupError: Bad lines\./)
})

t.test('no details: an empty list; the catalogue message when none is given', async (t) => {
  const error = new TrueupError(reject('not_found'), 404)
  t.same(error.details, [])
  t.equal(error.message, reject('not_found').message)
  t.equal(error.status, 404)
})
