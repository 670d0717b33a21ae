/**
 * package.json's `dependencies` are exactly the packages src/ imports at run time: a package src/ needs
 * cannot hide in devDependencies (an install with --omit=dev would break), and a package only the tests
 * or benches use (temporal-polyfill, say) does not ship to every user of the service or the library.
 */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { repositoryRoot } from '../support/process.ts'

const packageJson = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> }

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return entry.name.endsWith('.ts') ? [full] : []
  })
}

/** `lmdb` of 'lmdb', `@scope/name` of '@scope/name/sub', `typebox` of 'typebox/compile'. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

/** Bare specifiers imported at run time: `import type` and `export type` are erased by the compiler. */
function runtimeImports(source: string): string[] {
  const fromClauses = [...source.matchAll(/(?:^|[\n;])\s*(?:import|export)\s+(type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g)]
    .filter((match) => match[1] === undefined).map((match) => match[2])
  const bare = [...source.matchAll(/(?:^|[\n;])\s*import\s*['"]([^'"]+)['"]/g)].map((match) => match[1])
  const dynamic = [...source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((match) => match[1])
  return [...fromClauses, ...bare, ...dynamic].filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:'))
}

const imported = new Map<string, string>()
for (const file of sourceFiles(path.join(repositoryRoot, 'src'))) {
  for (const specifier of runtimeImports(fs.readFileSync(file, 'utf8'))) imported.set(packageOf(specifier), path.relative(repositoryRoot, file))
}

t.test('the import scan sees multi-line, side-effect and dynamic imports, not type-only ones', async (t) => {
  const source = "import {\n  a,\n  b,\n} from 'multi/sub'\nimport type { C } from 'only-types'\nimport 'side-effect'\nconst d = await import('@scope/dynamic/x')\nexport { e } from './local.js'\n"
  t.same(runtimeImports(source).map(packageOf), ['multi', 'side-effect', '@scope/dynamic'])
})

/**
 * Imported only when src/ runs from its .ts sources (tests, benches), never from dist/: a worker thread started on a
 * .ts module registers tsx's hooks itself then (src/worker-thread.ts). A devDependency is right for these.
 */
const sourceOnly = new Map([['tsx', new Set(['src/worker-thread.ts'])]])

t.test('every package src/ imports at run time is a dependency', async (t) => {
  t.ok(imported.size > 0, 'src/ imports packages')
  for (const [name, file] of imported) {
    if (sourceOnly.get(name)?.has(file) === true) t.ok(name in packageJson.devDependencies, `${name} (imported by ${file} only when run from the sources) is a devDependency`)
    else t.ok(name in packageJson.dependencies, `${name} (imported by ${file}) is in dependencies`)
  }
})

t.test('every dependency is imported by src/ at run time (test-only packages are devDependencies)', async (t) => {
  for (const name of Object.keys(packageJson.dependencies)) t.ok(imported.has(name), `${name} is imported by src/`)
})
