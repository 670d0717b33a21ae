/** The layering of src/ as its imports show it (issue 13): which folder may import which, and what loading the embedded Ledger loads. */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const src = path.join(root, 'src')

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return entry.name.endsWith('.ts') ? [full] : []
  })
}

/** Every module specifier of a file: static imports and re-exports (type-only ones too: they are the structure), dynamic imports. */
export function specifiersOf(text: string): string[] {
  const found: string[] = []
  const patterns = [/\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g]
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1])
  return found
}

/** The top folder under src/ an import lands in (`edge`, `log`, …), or null for packages and files at src/'s top. */
function layerOf(file: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null
  const target = path.relative(src, path.resolve(path.dirname(file), specifier))
  const parts = target.split(path.sep)
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : null
}

interface Import { readonly from: string; readonly layer: string; readonly specifier: string }

const imports: Import[] = sourceFiles(src).flatMap((file) => {
  const from = path.relative(src, file)
  return specifiersOf(fs.readFileSync(file, 'utf8')).flatMap((specifier) => {
    const layer = layerOf(file, specifier)
    return layer === null ? [] : [{ from, layer, specifier }]
  })
})

const rules: readonly { readonly from: string; readonly forbidden: readonly string[]; readonly why: string }[] = [
  { from: 'edge', forbidden: ['log'], why: 'the edge reaches durability through the actor\'s completions, never the log' },
  { from: 'log', forbidden: ['actor', 'edge'], why: 'the log stores records and snapshots of state; it knows no actor and no transport' },
  { from: 'embedded', forbidden: ['edge'], why: 'in-process use needs no HTTP (nor uWebSockets.js)' },
  { from: 'api', forbidden: ['edge', 'log'], why: 'the route table and the lifecycle serve every transport, the edge included' },
  // The ways in hold a Shard handle and send it operations (docs/ARCHITECTURE.md, "The boundary"): the actors,
  // the runtime and the log are behind it, on whichever thread the shard runs.
  ...['api', 'edge', 'stream', 'exports', 'embedded'].map((from) => ({ from, forbidden: ['actor'], why: 'the ways in reach workspaces only through a Shard (src/shard/operation.ts)' })),
  { from: 'embedded', forbidden: ['log'], why: 'the embedded Ledger opens its data dir through the composition root (src/shard/local-node.ts)' },
]

t.test('the parser finds every kind of import', async (t) => {
  const text = "import a from './a.js'\nimport type { B } from '../b.js'\nexport { c } from './c.js'\nimport './d.js'\nconst e = await import('./e.js')\nimport {\n  f,\n} from './f.js'"
  t.same(specifiersOf(text).sort(), ['../b.js', './a.js', './c.js', './d.js', './e.js', './f.js'])
})

t.test('the source tree was read', async (t) => {
  t.ok(imports.some((entry) => entry.from.startsWith('edge') && entry.layer === 'api'), 'edge imports api')
  t.ok(imports.some((entry) => entry.from.startsWith('embedded') && entry.layer === 'shard'), 'embedded imports shard (it opens a node)')
})

for (const rule of rules) {
  t.test(`no file in src/${rule.from} imports ${rule.forbidden.map((layer) => `src/${layer}`).join(' or ')}: ${rule.why}`, async (t) => {
    const broken = imports.filter((entry) => entry.from.split(path.sep)[0] === rule.from && rule.forbidden.includes(entry.layer))
    t.same(broken.map((entry) => `${entry.from} -> ${entry.specifier}`), [])
  })
}

/** The CommonJS module cache after importing `module` in a fresh process: uWebSockets.js is a native CommonJS addon. */
function uwsLoadedBy(module: string): boolean {
  const probe = `import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
await import(${JSON.stringify(path.join(root, module))})
process.stdout.write(JSON.stringify(Object.keys(require.cache).some((name) => /uWebSockets|uws-pack|[\\\\/]uws[^\\\\/]*$/.test(name))))`
  const output = execFileSync(process.execPath, ['--import=tsx', '--input-type=module', '-e', probe], { cwd: root, encoding: 'utf8' })
  return JSON.parse(output) as boolean
}

t.test('loading the embedded Ledger does not load uWebSockets.js', async (t) => {
  t.equal(uwsLoadedBy('src/edge/server.ts'), true, 'the probe sees uWebSockets.js when the HTTP server is loaded')
  t.equal(uwsLoadedBy('src/embedded/ledger.ts'), false, 'the embedded Ledger loads no uWebSockets.js')
})
