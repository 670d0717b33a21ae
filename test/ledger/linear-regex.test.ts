/**
 * The matching rules' regular expressions (src/ledger/linear-regex.ts): the same answers as V8's RegExp on
 * the syntax they accept, a refusal for what needs backtracking, and a cost linear in the text on the
 * patterns that make a backtracking engine take exponential time, counted by the engine's own steps (not
 * by a clock, which a busy machine makes noisy).
 */
import fc from 'fast-check'
import t from 'tap'
import { compileLinearRegex, LinearRegex } from '../../src/ledger/linear-regex.ts'

function compiled(pattern: string): LinearRegex {
  const regex = compileLinearRegex(pattern)
  if (!(regex instanceof LinearRegex)) throw new Error(`${pattern}: ${regex.problem}`)
  return regex
}

t.test('answers as RegExp does on fixed cases', async (t) => {
  const cases: [string, string[]][] = [
    ['abc', ['abc', 'xabcx', 'ab', '']],
    ['^INV-\\d{4}$', ['INV-1234', 'INV-123', 'xINV-1234', 'INV-12345']],
    ['a|b|', ['', 'c', 'b']],
    ['(ab)+c', ['abababc', 'ac', 'abc']],
    ['[^a-c]x', ['ax', 'dx', 'x']],
    ['[\\w.-]+@[\\w-]+\\.(com|de)', ['me@x.com', 'a.b@y-z.de', '@x.com']],
    ['colou?r', ['color', 'colour', 'colouur']],
    ['a{2,3}', ['a', 'aa', 'aaaa']],
    ['a{2,}b', ['aab', 'ab', 'aaaaab']],
    ['(?:x|y)*z$', ['xyxz', 'xyx', 'z']],
    ['\\s\\S\\D\\W', [' a-!', 'a b c', ' 1_ ']],
    ['.', ['\n', 'é', '']],
    ['[\\]\\\\]', [']', '\\', 'a']],
    ['€+', ['€€', 'e']],
    ['a*?b', ['aaab', 'aaa']],
    ['^$', ['', 'a']],
  ]
  for (const [pattern, texts] of cases) {
    const mine = compiled(pattern)
    for (const text of texts) t.equal(mine.test(text), new RegExp(pattern, 'u').test(text), `/${pattern}/ on ${JSON.stringify(text)}`)
  }
})

t.test('refuses what needs backtracking or is not implemented, with a reason', async (t) => {
  for (const pattern of ['(a)\\1', 'a(?=b)', 'a(?!b)', '(?<=a)b', '(?<name>a)', '\\bword', '\\p{L}', 'a**', '*a', '(a', 'a)', '[a', 'a{1000}', '((a{100}){100}){100}', 'a{3,2}', 'x'.repeat(300), 'a\\']) {
    const regex = compileLinearRegex(pattern)
    t.notOk(regex instanceof LinearRegex, `${pattern} refused`)
    if (!(regex instanceof LinearRegex)) t.ok(regex.problem.length > 0, `${pattern}: ${regex.problem}`)
  }
})

t.test('agrees with RegExp on random patterns over a small alphabet', async () => {
  const atom = fc.oneof(fc.constantFrom('a', 'b', '.', '[ab]', '[^a]', '\\d', '^', '$'), fc.constant('c'))
  const quantified = fc.tuple(atom, fc.constantFrom('', '*', '+', '?', '{1,2}')).map(([a, q]) => (a === '^' || a === '$' ? a : a + q))
  const sequence = fc.array(quantified, { minLength: 0, maxLength: 4 }).map((parts) => parts.join(''))
  const pattern = fc.oneof(sequence, fc.tuple(sequence, sequence).map(([x, y]) => `${x}|${y}`), fc.tuple(sequence, fc.constantFrom('*', '+', '?', '')).map(([x, q]) => `(${x})${q}`))
  fc.assert(fc.property(pattern, fc.stringMatching(/^[abc1\n]{0,8}$/), (source, text) => compiled(source).test(text) === new RegExp(source, 'u').test(text)), { numRuns: 3000 })
})

/** Steps of one test of `text` (the engine's own count: no clock, so a busy machine does not change it). */
function stepsOf(regex: LinearRegex, text: string): { found: boolean; steps: number } {
  const before = regex.steps
  const found = regex.test(text)
  return { found, steps: regex.steps - before }
}

t.test('catastrophic patterns cost steps linear in the text: bounded per character, and 16 times the text costs at most 16 times the steps', async (t) => {
  // Exponential for a backtracking engine on these texts (V8 would not finish): nested and overlapping
  // repeats, and a pattern whose sets of states are exponentially many (the cache is cleared past its bound).
  // a and b drawn by a fixed linear congruential generator: the last 21 characters take ~2^21 forms, so
  // the sets of states of [ab]*a[ab]{20}c outgrow the cache again and again.
  const random = (length: number) => {
    let seed = 28
    return Array.from({ length }, () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) >= 1_073_741_824 ? 'a' : 'b')).join('')
  }
  const cases: [string, (length: number) => string, boolean][] = [
    ['(a+)+$', (length) => `${'a'.repeat(length)}b`, false],
    ['(a|aa)*c', (length) => 'a'.repeat(length), false],
    ['(a*)*b$', (length) => `${'a'.repeat(length)}b`, true],
    ['^(a|a)*$', (length) => `${'a'.repeat(length)}!`, false],
    ['(.*a){12}x', (length) => 'a'.repeat(length), false],
    ['a*a*a*a*a*c', (length) => 'a'.repeat(length), false],
    ['(x+x+)+y', (length) => 'x'.repeat(length), false],
    ['[ab]*a[ab]{20}c', random, false],
  ]
  for (const [pattern, textOf, expected] of cases) {
    const regex = compiled(pattern)
    const small = stepsOf(regex, textOf(2_000))
    const large = stepsOf(compiled(pattern), textOf(32_000))
    t.equal(large.found, expected, `/${pattern}/ answers`)
    t.ok(large.found === new RegExp(pattern).test(textOf(20)), `/${pattern}/ as RegExp on a short text`)
    const perCharacter = 3 * regex.size + 4
    t.ok(large.steps <= 32_001 * perCharacter, `/${pattern}/: ${large.steps} steps on 32,000 characters, at most ${perCharacter} per character (${regex.size} states)`)
    t.ok(large.steps <= 16 * small.steps * 1.1 + 1_000, `/${pattern}/: ${small.steps} steps on 2,000 characters, ${large.steps} on 32,000 (linear: ×16)`)
  }
})

t.test('backreferences and lookaround, the constructs that need backtracking, are refused before anything runs', async (t) => {
  for (const pattern of ['(a+)+\\1', '^(a|aa)\\1*$', '(?=(a+))\\1b', '(?!a+b)a', '(?<=a+)b', '(?<!a)b', '(?<x>a+)+\\k<x>']) {
    const regex = compileLinearRegex(pattern)
    t.notOk(regex instanceof LinearRegex, `/${pattern}/ is refused${regex instanceof LinearRegex ? '' : `: ${regex.problem}`}`)
  }
})
