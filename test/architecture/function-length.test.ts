/**
 * No function in src/ spans more than 70 lines (after TigerBeetle's tidy.zig). Functions are
 * found by test/support/function-spans.ts (TypeScript 7 ships no JavaScript parser); the first subtest
 * checks that scanner on a sample, so the real check cannot pass by finding nothing.
 */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { functionSpans } from '../support/function-spans.ts'

const functionLinesMax = 70
const srcDir = path.resolve(import.meta.dirname, '../../src')

const sample = [
  /* 1 */ 'export function plain(a: number): { ok: true; n: number } {',
  /* 2 */ '  const text = "} { \\" }" + \'{\' + `${a} } ${`nested ${ { a }.a }`} {`',
  /* 3 */ '  const pattern = /[{}]\\/}/g // a comment with }',
  /* 4 */ '  if (a > 0) {',
  /* 5 */ '    for (const x of [1]) { void x }',
  /* 6 */ '  }',
  /* 7 */ '  const pick = a > 1 ? wrap(a) : { fallback: true }',
  /* 8 */ '  return { ok: true, n: a / 2 / 1 }',
  /* 9 */ '}',
  /* 10 */ 'class Counter {',
  /* 11 */ '  #count = 0',
  /* 12 */ '  async #commit<T>(value: T): Promise<void> {',
  /* 13 */ '    this.#count++',
  /* 14 */ '  }',
  /* 15 */ '  get count(): number { return this.#count }',
  /* 16 */ '  constructor() {',
  /* 17 */ '    const add = (x: number) => {',
  /* 18 */ '      /* } */ return x + 1',
  /* 19 */ '    }',
  /* 20 */ '    void add',
  /* 21 */ '  }',
  /* 22 */ '}',
  /* 23 */ 'const arrow = async (x: number): Promise<number> => {',
  /* 24 */ '  return x',
  /* 25 */ '}',
].join('\n')

t.test('the scanner finds declarations, methods, getters, constructors and arrows, and nothing else', async (t) => {
  const spans = functionSpans(sample).map((span) => [span.startLine, span.endLine])
  t.same(spans, [[1, 9], [12, 14], [15, 15], [16, 21], [17, 19], [23, 25]], 'if/for blocks, object literals, types and braces in strings, templates, regexes and comments are not functions')
})

t.test(`no function in src/ spans more than ${functionLinesMax} lines`, async (t) => {
  const files = fs.readdirSync(srcDir, { recursive: true }).map(String).filter((file) => file.endsWith('.ts')).sort()
  const tooLong: string[] = []
  let functions = 0
  for (const file of files) {
    const spans = functionSpans(fs.readFileSync(path.join(srcDir, file), 'utf8'))
    functions += spans.length
    for (const span of spans) if (span.lines > functionLinesMax) tooLong.push(`src/${file}:${span.startLine} (${span.lines} lines) ${span.header}`)
  }
  t.ok(functions > files.length, `functions found: ${functions} in ${files.length} files`)
  t.same(tooLong, [], 'functions over the limit')
})
