/**
 * No import circle in src/ledger (issue 13.5): the core is a layered set of modules, so each can be read,
 * tested and loaded on its own. Type-only imports count too: a circle of types is the same tangle of
 * concepts. The graph is read from the import and re-export statements of every file.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'

const ledgerDir = path.resolve(import.meta.dirname, '../../src/ledger')

/** The ledger files each ledger file imports or re-exports from (by file name). */
export function importGraph(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.ts')).sort()) {
    const text = fs.readFileSync(path.join(dir, file), 'utf8')
    const targets: string[] = []
    for (const match of text.matchAll(/^\s*(?:import|export)\b[^;'"]*?\bfrom\s+'\.\/([^'/]+)\.(?:js|ts)'/gm)) targets.push(`${match[1]}.ts`)
    for (const match of text.matchAll(/^\s*import\s+'\.\/([^'/]+)\.(?:js|ts)'/gm)) targets.push(`${match[1]}.ts`)
    graph.set(file, [...new Set(targets)].sort())
  }
  return graph
}

/** Every circle, each once, as the path of files that closes it (depth-first search, colours white/grey/black). */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = []
  const seen = new Set<string>()
  const colour = new Map<string, 'grey' | 'black'>()
  const stack: string[] = []
  const visit = (file: string): void => {
    colour.set(file, 'grey')
    stack.push(file)
    for (const target of graph.get(file) ?? []) {
      if (colour.get(target) === 'grey') {
        const cycle = [...stack.slice(stack.indexOf(target)), target]
        const key = [...cycle.slice(0, -1)].sort().join(' ')
        if (!seen.has(key)) {
          seen.add(key)
          cycles.push(cycle)
        }
      } else if (colour.get(target) === undefined && graph.has(target)) visit(target)
    }
    stack.pop()
    colour.set(file, 'black')
  }
  for (const file of graph.keys()) if (colour.get(file) === undefined) visit(file)
  return cycles
}

t.test('the checker finds circles: a direct one, a longer one, and none in a chain', async (t) => {
  t.same(cyclesOf(new Map([['a.ts', ['b.ts']], ['b.ts', ['a.ts']]])), [['a.ts', 'b.ts', 'a.ts']])
  t.same(cyclesOf(new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']]])), [['a.ts', 'b.ts', 'c.ts', 'a.ts']])
  t.same(cyclesOf(new Map([['a.ts', ['b.ts', 'c.ts']], ['b.ts', ['c.ts']], ['c.ts', []]])), [])
})

t.test('the graph reader sees type imports, multi-line imports and re-exports', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-graph-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b.js'\nimport {\n  c,\n} from './c.js'\nexport { d } from './d.js'\nimport x from '../errors.js'\n")
  for (const name of ['b', 'c', 'd']) fs.writeFileSync(path.join(dir, `${name}.ts`), '')
  t.same(importGraph(dir).get('a.ts'), ['b.ts', 'c.ts', 'd.ts'])
})

t.test('src/ledger has no import circle', async (t) => {
  const graph = importGraph(ledgerDir)
  t.ok(graph.size > 10, `read ${graph.size} ledger modules`)
  const cycles = cyclesOf(graph)
  t.same(cycles.map((cycle) => cycle.join(' → ')), [], 'every circle, as the files that close it')
})
