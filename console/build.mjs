// Bundles the console (console/src) into dist/console with esbuild: one script and one stylesheet with a
// content hash in their names (served as immutable), and index.html naming them (served no-cache).
// Runs from `npm run build:console`, which `prepare` calls, so `npm install` / `npm ci` leave it built.
import { build } from 'esbuild'
import fs from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
const outDir = path.join(root, 'dist', 'console')
fs.rmSync(outDir, { recursive: true, force: true })
const result = await build({
  entryPoints: { app: path.join(root, 'console', 'src', 'main.js') },
  bundle: true,
  minify: process.env.CONSOLE_MINIFY !== "0",
  format: 'esm',
  target: ['es2022'],
  outdir: outDir,
  entryNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'linked',
  logLevel: 'warning',
})
const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file))
const script = outputs.find((name) => name.endsWith('.js'))
const style = outputs.find((name) => name.endsWith('.css'))
if (script === undefined || style === undefined) throw new Error(`console build: expected a .js and a .css output, got ${outputs.join(', ')}`)
const template = fs.readFileSync(path.join(root, 'console', 'src', 'index.html'), 'utf8')
fs.writeFileSync(path.join(outDir, 'index.html'), template.replace('%SCRIPT%', script).replace('%STYLE%', style))
console.log(`console: built ${['index.html', ...outputs].join(', ')} into dist/console`)
