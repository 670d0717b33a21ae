/**
 * Free text (src/api/schemas/text.ts): the control characters refused are exactly C0 but tab, DEL and C1, by the
 * function and by the schema pattern alike (every code unit of the Basic Multilingual Plane compared); text() bounds
 * its length and applies that pattern; a lone surrogate (high without low, low without high, at either end) is found,
 * a pair is not; freeTextProblem names the control character first, then the surrogate, else null.
 */
import t from 'tap'
import { Compile } from 'typebox/compile'
import { freeTextProblem, hasControlCharacter, hasLoneSurrogate, surrogateProblem, text, textPattern, textProblem } from '../../../src/api/schemas/text.ts'

const isControl = (code: number) => (code <= 0x1f && code !== 0x09) || (code >= 0x7f && code <= 0x9f)

t.test('control characters: C0 but tab, DEL, C1; the function and the schema pattern agree on every BMP code unit', async (t) => {
  const pattern = new RegExp(textPattern)
  const disagreements: string[] = []
  for (let code = 0; code <= 0xffff; code++) {
    const char = String.fromCharCode(code)
    const expected = isControl(code)
    if (hasControlCharacter(`a${char}b`) !== expected || pattern.test(`a${char}b`) === expected) disagreements.push(code.toString(16))
  }
  t.same(disagreements, [], 'none')
  for (const code of [0x00, 0x0a, 0x0d, 0x1b, 0x1f, 0x7f, 0x85, 0x9b, 0x9f]) t.ok(hasControlCharacter(String.fromCharCode(code)), code.toString(16))
  for (const code of [0x09, 0x20, 0x7e, 0xa0, 0x2028, 0xfeff]) t.notOk(hasControlCharacter(String.fromCharCode(code)), code.toString(16))
  t.notOk(hasControlCharacter(''), 'empty text has none')
  t.match(textPattern, /^[\x20-\x7e]+$/, 'the published pattern is plain ASCII')
})

t.test('text(): the bounds given and the pattern, checked as a schema', async (t) => {
  const schema = text({ minLength: 1, maxLength: 5, description: 'a label' })
  t.match(schema, { type: 'string', minLength: 1, maxLength: 5, pattern: textPattern, description: 'a label' })
  const check = Compile(schema)
  t.ok(check.Check('a\tb'))
  t.ok(check.Check('12345'))
  t.notOk(check.Check(''), 'below minLength')
  t.notOk(check.Check('123456'), 'over maxLength')
  t.notOk(check.Check('a\nb'), 'a line break')
  t.ok(Compile(text({ maxLength: 3 })).Check(''), 'no minLength: empty text is fine')
})

t.test('lone surrogates: found at either end and in the middle; a pair, and astral text, are fine', async (t) => {
  for (const lone of ['\ud800', 'a\udbff', '\udc00a', 'a\udfffb', '\udc00\ud800', '\ud83d\ude00\ud83d']) t.ok(hasLoneSurrogate(lone), JSON.stringify(lone))
  for (const fine of ['', 'abc', '\ud83d\ude00', 'a\ud800\udc00b', '\u{10ffff}', '\ufffd']) t.notOk(hasLoneSurrogate(fine), JSON.stringify(fine))
})

t.test('freeTextProblem: the control character first, then the surrogate, else null', async (t) => {
  t.equal(freeTextProblem('Invoice 1001\tpaid €'), null)
  t.equal(freeTextProblem('a\u0000'), textProblem)
  t.equal(freeTextProblem('a\ud800'), surrogateProblem)
  t.equal(freeTextProblem('\ud800\u0007'), textProblem, 'both: the control character is named')
})
