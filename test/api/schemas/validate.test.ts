/**
 * Compiled validators (src/api/schemas/validate.ts): a value that fits comes back as it is; one that does not is
 * request_invalid with a detail per failure (a JSON pointer, `/` for the whole value), at most 20; an unknown field is
 * named once, at the field, in words; the free-text pattern is explained as control characters; the message leads
 * with the first detail; the validator carries its schema for the OpenAPI document.
 */
import t from 'tap'
import { Type } from 'typebox'
import { text, textPattern, textProblem } from '../../../src/api/schemas/text.ts'
import { unknownFieldProblem, validator } from '../../../src/api/schemas/validate.ts'
import type { ErrorDetail, Rejection } from '../../../src/errors.ts'

const closedObject = Type.Object({ name: text({ minLength: 1, maxLength: 10 }), count: Type.Optional(Type.Integer({ minimum: 0 })) }, { additionalProperties: false })
const validate = validator(closedObject)

/** The refusal a check gave, its details always a list (throws when the value passed). */
function refusal(checked: { ok: true } | Rejection): { readonly message: string; readonly details: readonly ErrorDetail[] } {
  if (checked.ok) throw new Error('the value passed')
  return { message: checked.message, details: checked.details ?? [] }
}

t.test('a value that fits: ok, the very value; the schema carried as given', async (t) => {
  const value = { name: 'ab', count: 0 }
  const checked = validate(value)
  t.same(checked, { ok: true, value })
  t.equal((checked as { value: unknown }).value, value, 'not a copy')
  t.equal(validate.schema, closedObject)
})

t.test('an unknown field: one detail, at the field, in words (the object-level failure dropped)', async (t) => {
  t.same(validate({ name: 'ab', colour: 'red' }), {
    ok: false, code: 'request_invalid', message: `Invalid request: /colour ${unknownFieldProblem}`,
    details: [{ path: '/colour', message: unknownFieldProblem }],
  })
  const nested = validator(Type.Object({ inner: closedObject }, { additionalProperties: false }))
  t.match(nested({ inner: { name: 'ab', x: 1, y: 2 } }), { details: [{ path: '/inner/x', message: unknownFieldProblem }, { path: '/inner/y', message: unknownFieldProblem }] })
  t.equal(refusal(nested({ inner: { name: 'ab', x: 1, y: 2 } })).details.length, 2, 'two unknown fields, two details')
})

t.test('free text with a control character: the text problem, not the regular expression', async (t) => {
  const refused = refusal(validate({ name: 'a\u0000b' }))
  t.same(refused.details, [{ path: '/name', message: textProblem }])
  t.notMatch(refused.message, textPattern)
  const otherPattern = validator(Type.Object({ code: Type.String({ pattern: '^[A-Z]{3}$' }) }))
  t.match(otherPattern({ code: 'eur' }), { details: [{ path: '/code', message: /\^\[A-Z\]\{3\}\$/ }] }, 'another pattern keeps the validator\'s own words')
  t.match(validate({ name: 'a\tb' }), { ok: true }, 'a tab is text')
})

t.test('the whole value wrong: path /; a missing field and a bad one each named', async (t) => {
  for (const whole of [null, 'text', 3, [], undefined]) {
    t.match(validate(whole), { ok: false, code: 'request_invalid', details: [{ path: '/' }] }, String(whole))
  }
  const both = refusal(validate({ count: -1 }))
  t.same(both.details.map((detail) => detail.path).sort(), ['/', '/count'].sort(), 'the missing name at /, the count at /count')
  t.equal(both.message, `Invalid request: ${both.details[0].path} ${both.details[0].message}`, 'the message is the first detail')
})

t.test('at most 20 details, however many failures', async (t) => {
  const many = validator(Type.Array(Type.Integer()))
  const refused = refusal(many(Array.from({ length: 50 }, (_, index) => `v${index}`)))
  t.equal(refused.details.length, 20)
  t.same(refused.details.slice(0, 2).map((detail) => detail.path), ['/0', '/1'], 'the first failures, in order')
  t.equal(refusal(many(Array.from({ length: 19 }, () => 'x'))).details.length, 19, 'fewer: each one')
  const unknown = Object.fromEntries(Array.from({ length: 25 }, (_, index) => [`f${String(index).padStart(2, '0')}`, index]))
  const named = refusal(validate({ name: 'ab', ...unknown }))
  t.same(named.details, Array.from({ length: 20 }, (_, index) => ({ path: `/f${String(index).padStart(2, '0')}`, message: unknownFieldProblem })), '20 unknown fields named, each once')
  const twelve = refusal(validate({ name: 'ab', ...Object.fromEntries(Object.entries(unknown).slice(0, 12)) }))
  t.equal(twelve.details.length, 12, 'every one of 12 unknown fields named')
})
