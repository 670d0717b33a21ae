/**
 * The matching rules' regular expressions (src/ledger/linear-regex.ts): the same answers as V8's RegExp on
 * the syntax they accept, a refusal for what needs backtracking, and linear time on the patterns that make
 * a backtracking engine take exponential time.
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

t.test('catastrophic patterns run in linear time: well under 100 ms on 50,000 characters', async (t) => {
  const text = `${'a'.repeat(50_000)}b`
  for (const pattern of ['(a+)+$', '(a|aa)*c', '(a*)*b$', '^(a|a)*$', '(.*a){12}x', 'a*a*a*a*a*c']) {
    const regex = compiled(pattern)
    regex.test(text)
    // The best of three: the cost of the algorithm, not of a busy machine's scheduling.
    let elapsedMs = Infinity
    let found = false
    for (let run = 0; run < 3; run++) {
      const started = performance.now()
      found = regex.test(text)
      elapsedMs = Math.min(elapsedMs, performance.now() - started)
    }
    t.equal(found, pattern === '(a*)*b$', `/${pattern}/ answers`)
    t.ok(elapsedMs < 100, `/${pattern}/ took ${elapsedMs.toFixed(1)} ms`)
  }
})
