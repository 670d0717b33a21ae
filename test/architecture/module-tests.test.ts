/**
 * Tests mirror modules: src/x/y.ts has its own behaviour checked in test/x/y.test.ts (scripts/module-tests.ts
 * lists which do). A module that is types-only (nothing of it is left once its types are stripped) needs none.
 * Every other module without a test of its own is written below, by name: the gap is visible and cannot grow.
 * A new module with behaviour comes with its test file; when a listed module gets one, its entry goes (a test
 * here fails while it stays, so the list is never longer than the gap).
 */
import t from 'tap'
import { isTypesOnly, moduleTests } from '../../scripts/module-tests.ts'

/**
 * Today's modules with behaviour and no test of their own: none (the last 68 got theirs on 2026-11-27). A module
 * listed here is a gap said out loud; `node --import=tsx scripts/module-tests.ts --list` shows how many test files
 * import each module directly.
 */
const withoutOwnTest: readonly string[] = []

t.test('types-only: what compiles to no JavaScript, and nothing that runs', async (t) => {
  t.equal(isTypesOnly("import type { A } from './a.js'\nexport interface B { readonly a: A }\nexport type C = B | null\n"), true)
  t.equal(isTypesOnly('/** @module Only a comment. */\n'), true)
  t.equal(isTypesOnly('export interface B { n: number }\nexport const zero = 0\n'), false, 'a constant is behaviour of a kind')
  t.equal(isTypesOnly('export enum Kind { A, B }\n'), false, 'an enum compiles to an object')
  t.equal(isTypesOnly("export { shardOf } from './placement.js'\n"), false, 'a re-export of a value')
  t.equal(isTypesOnly('export function f(): void {}\n'), false)
})

t.test('every module with behaviour has a test of its own, or is listed as a gap', async (t) => {
  const rows = moduleTests()
  t.ok(rows.length > 150, `${rows.length} modules read`)
  const known = new Set(rows.map((row) => row.module))
  const listed = new Set(withoutOwnTest)
  t.equal(listed.size, withoutOwnTest.length, 'no module is listed twice')
  const unlisted = rows.filter((row) => !row.ownTest && !row.typesOnly && !listed.has(row.module)).map((row) => row.module)
  t.same(unlisted, [], `write test/<module>.test.ts for these (a new module with behaviour needs its own test)`)
  const stale = withoutOwnTest.filter((module) => !known.has(module) || rows.find((row) => row.module === module)!.ownTest)
  t.same(stale, [], 'take these out of the list: they have a test of their own now, or no longer exist')
  const typesOnlyListed = rows.filter((row) => row.typesOnly && listed.has(row.module)).map((row) => row.module)
  t.same(typesOnlyListed, [], 'types-only modules need no entry')
})
