/**
 * The client's wire types (src/client/types.ts): all types but StreamError, the server's refusal of a message as the
 * client throws it. Its code, message and details as given (details empty when none), its name, and that it is an
 * Error a caller can tell apart by instanceof.
 */
import t from 'tap'
import { StreamError } from '../../src/client/types.ts'

t.test('a StreamError carries the code, message and details it was given', async (t) => {
  const details = [{ path: '/topics/accounts/0', message: 'no such account' }]
  const error = new StreamError('not_found', 'No such account.', details)
  t.ok(error instanceof Error)
  t.ok(error instanceof StreamError)
  t.equal(error.name, 'StreamError')
  t.equal(error.code, 'not_found')
  t.equal(error.message, 'No such account.')
  t.same(error.details, details)
  t.equal(String(error), 'StreamError: No such account.')
  t.match(String(error.stack), /^StreamError: No such account\./)
})

t.test('without details: an empty list, never undefined', async (t) => {
  const error = new StreamError('unavailable', 'The connection is not open.')
  t.same(error.details, [])
  t.equal(error.code, 'unavailable')
})

t.test('edge values: an empty code and message are kept as given', async (t) => {
  const error = new StreamError('', '')
  t.same([error.code, error.message, error.details], ['', '', []])
  t.equal(String(error), 'StreamError')
})
