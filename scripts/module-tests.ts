/**
 * @module `node --import=tsx scripts/module-tests.ts [--list]`: which modules have a test of their own.
 *
 * Tests mirror modules: src/x/y.ts has its own behaviour checked in test/x/y.test.ts. For every module under src/
 * this prints whether that file exists and how many files under test/ import the module directly (a module no test
 * imports is only reached through others, if at all), and whether it is types-only (nothing of it runs: it needs no
 * test of its own). Without --list it prints the counts only. test/architecture/module-tests.test.ts keeps the
 * modules without a test of their own to a written list.
 */
import { transformSync } from 'esbuild'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

function filesUnder(dir: string, suffix: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return filesUnder(full, suffix)
    return entry.name.endsWith(suffix) ? [full] : []
  })
}

/** Relative module specifiers of a file: static imports, re-exports and dynamic imports. */
function relativeSpecifiers(text: string): string[] {
  const patterns = [/\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*['"](\.[^'"]+)['"]/g, /\bimport\s*['"](\.[^'"]+)['"]/g, /\bimport\s*\(\s*['"](\.[^'"]+)['"]\s*\)/g]
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]))
}

export interface ModuleTests {
  /** The module's path under src/, e.g. `webhooks/deliverer.ts`. */
  readonly module: string
  /** test/<same path>.test.ts exists. */
  readonly ownTest: boolean
  /** The files under test/ that import the module directly. */
  readonly importedBy: readonly string[]
  /** Nothing of the module is left once its types are stripped (interfaces, type aliases, type imports): no behaviour to test. */
  readonly typesOnly: boolean
}

/** Whether the TypeScript source compiles to no JavaScript at all (an empty module's `export {}` aside). */
export function isTypesOnly(source: string): boolean {
  const code = transformSync(source, { loader: 'ts', format: 'esm' }).code
  return code.replace(/export\s*\{\s*\};?/g, '').trim() === ''
}

export function moduleTests(): ModuleTests[] {
  const src = path.join(root, 'src')
  const testDir = path.join(root, 'test')
  const importers = new Map<string, string[]>()
  for (const file of filesUnder(testDir, '.ts')) {
    for (const specifier of relativeSpecifiers(fs.readFileSync(file, 'utf8'))) {
      const target = path.relative(src, path.resolve(path.dirname(file), specifier)).replace(/\.js$/, '.ts')
      const list = importers.get(target) ?? []
      if (!list.includes(file)) list.push(path.relative(root, file))
      importers.set(target, list)
    }
  }
  return filesUnder(src, '.ts').map((file) => {
    const module = path.relative(src, file)
    const ownTest = fs.existsSync(path.join(testDir, module.replace(/\.ts$/, '.test.ts')))
    return { module, ownTest, importedBy: importers.get(module) ?? [], typesOnly: isTypesOnly(fs.readFileSync(file, 'utf8')) }
  }).sort((a, b) => a.module.localeCompare(b.module))
}

function main(): void {
  const rows = moduleTests()
  if (process.argv.includes('--list')) {
    for (const row of rows) process.stdout.write(`${row.ownTest ? 'own  ' : row.typesOnly ? 'type ' : '---  '} ${String(row.importedBy.length).padStart(3)}  ${row.module}\n`)
  }
  const withoutOwn = rows.filter((row) => !row.ownTest && !row.typesOnly)
  const typesOnly = rows.filter((row) => !row.ownTest && row.typesOnly)
  const unimported = rows.filter((row) => row.importedBy.length === 0)
  process.stdout.write(`${rows.length} modules; ${rows.length - withoutOwn.length - typesOnly.length} with a test of their own, ${typesOnly.length} types-only, ${withoutOwn.length} without; `
    + `${unimported.length} imported by no file under test/\n`)
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main()
