/**
 * The console's static files (src/edge/console.ts) without a server: which files of a directory are loaded (by
 * extension, files only), their content types and cache headers; and the answers to GET, HEAD and other methods
 * for /console, /console/ and /console/<file>, written to a recording stand-in of uWebSockets.js's response.
 * A path is looked up among the loaded names, never joined onto the file system.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { consoleAnswerer, consoleRoute, isConsolePath, loadConsoleAssets } from '../../src/edge/console.ts'
import type { Exchange } from '../../src/edge/http.ts'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-console-'))
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>trueup console</title>')
fs.writeFileSync(path.join(dir, 'app-ABC123.js'), 'console.log("é")')
fs.writeFileSync(path.join(dir, 'app-ABC123.css'), 'body{}')
fs.writeFileSync(path.join(dir, 'LICENSES.txt'), 'MIT')
fs.writeFileSync(path.join(dir, 'logo.png'), Buffer.from([0x89, 0x50]))
fs.writeFileSync(path.join(dir, 'app.js.map'), '{}')
fs.mkdirSync(path.join(dir, 'nested.js'))
fs.writeFileSync(path.join(path.dirname(dir), 'secret.txt'), 'outside')
t.teardown(() => fs.rmSync(path.join(path.dirname(dir), 'secret.txt'), { force: true }))

interface Written { status: string; headers: [string, string][]; body: string | null; ended: 'end' | 'without body' | null }

/** What uWebSockets.js takes as text: a string, or bytes (the service passes header names it encoded once). */
type RecognizedString = string | ArrayBuffer | Uint8Array

function textOf(value: RecognizedString): string {
  return typeof value === 'string' ? value : Buffer.from(value as ArrayBuffer).toString('utf8')
}

/** An exchange whose response records what uWebSockets.js would be told to write. */
function exchangeFor(method: string): { exchange: Exchange; written: Written } {
  const written: Written = { status: '', headers: [], body: null, ended: null }
  const res = {
    cork: (callback: () => void) => callback(),
    writeStatus: (status: RecognizedString) => { written.status = textOf(status) },
    writeHeader: (name: RecognizedString, value: RecognizedString) => { written.headers.push([textOf(name).toLowerCase(), textOf(value)]) },
    end: (body: string) => { written.body = body; written.ended = 'end' },
    endWithoutBody: () => { written.ended = 'without body' },
  }
  const exchange = {
    res, method, requestId: 'req-1', startedMs: 0, route: null, aborted: false, answered: false, status: 0, streaming: false,
    onSettled: () => undefined, server: { closing: false },
  } as unknown as Exchange
  return { exchange, written }
}

function header(written: Written, name: string): string | undefined {
  return written.headers.find(([key]) => key === name)?.[1]
}

t.test('the files loaded: .html, .js, .css, .txt files only, each with its content type and cache rule', async (t) => {
  const assets = loadConsoleAssets(dir)
  t.same([...assets.keys()].sort(), ['LICENSES.txt', 'app-ABC123.css', 'app-ABC123.js', 'index.html'], 'no image, source map or directory')
  t.same(Object.fromEntries([...assets].map(([name, asset]) => [name, asset.contentType])), {
    'index.html': 'text/html; charset=utf-8', 'app-ABC123.js': 'text/javascript; charset=utf-8',
    'app-ABC123.css': 'text/css; charset=utf-8', 'LICENSES.txt': 'text/plain; charset=utf-8',
  })
  t.same(assets.get('index.html')!.headers, [['cache-control', 'no-cache'], ['x-content-type-options', 'nosniff']], 'the index is revalidated')
  t.same(assets.get('app-ABC123.js')!.headers, [['cache-control', 'public, max-age=31536000, immutable'], ['x-content-type-options', 'nosniff']], 'hashed names are immutable')
  t.equal(assets.get('app-ABC123.js')!.body, 'console.log("é")', 'read as UTF-8')
  t.equal(loadConsoleAssets(path.join(dir, 'missing')).size, 0, 'no directory: nothing, no error')
})

t.test('GET /console and /console/ answer the index; /console/<file> the file', async (t) => {
  const answer = consoleAnswerer(loadConsoleAssets(dir))
  for (const route of ['/console', '/console/', '/console/index.html']) {
    const { exchange, written } = exchangeFor('GET')
    answer(exchange, 'GET', route)
    t.equal(written.status, '200 OK', route)
    t.equal(written.body, '<!doctype html><title>trueup console</title>')
    t.equal(header(written, 'content-type'), 'text/html; charset=utf-8')
    t.equal(header(written, 'cache-control'), 'no-cache')
    t.equal(header(written, 'x-content-type-options'), 'nosniff')
    t.equal(exchange.route, consoleRoute, 'labelled as the console in metrics and logs')
  }
  const { exchange, written } = exchangeFor('GET')
  answer(exchange, 'GET', '/console/app-ABC123.css')
  t.equal(written.body, 'body{}')
  t.equal(header(written, 'content-type'), 'text/css; charset=utf-8')
})

t.test('HEAD (routed as GET, as the server does) answers the headers and the GET body\'s length, without the body', async (t) => {
  const answer = consoleAnswerer(loadConsoleAssets(dir))
  const { exchange, written } = exchangeFor('HEAD')
  answer(exchange, 'GET', '/console/app-ABC123.js')
  t.equal(written.status, '200 OK')
  t.equal(header(written, 'content-length'), String(Buffer.byteLength('console.log("é")')), 'bytes, not characters')
  t.equal(written.ended, 'without body')
  t.equal(written.body, null)
})

t.test('another method on a file is 405 with Allow; on no file it is 404', async (t) => {
  const answer = consoleAnswerer(loadConsoleAssets(dir))
  const post = exchangeFor('POST')
  answer(post.exchange, 'POST', '/console')
  t.equal(post.written.status, '405 Method Not Allowed', 'the status line names it')
  t.equal(header(post.written, 'allow'), 'GET, HEAD')
  t.equal(JSON.parse(post.written.body!).error.code, 'method_not_allowed')
  const missing = exchangeFor('DELETE')
  answer(missing.exchange, 'DELETE', '/console/nothing.js')
  t.match(missing.written.status, /^404/)
})

t.test('unknown names, other directories and traversal are 404 naming at most 80 characters; nothing outside is read', async (t) => {
  const answer = consoleAnswerer(loadConsoleAssets(dir))
  for (const route of ['/console/../secret.txt', '/console/%2e%2e/secret.txt', '/console/logo.png', '/console/nested.js', '/console/app.js.map', '/console//index.html', '/console/INDEX.HTML']) {
    const { exchange, written } = exchangeFor('GET')
    answer(exchange, 'GET', route)
    t.match(written.status, /^404/, route)
    const error = JSON.parse(written.body!).error
    t.equal(error.code, 'not_found')
    t.notMatch(written.body!, /outside/, 'no file outside the directory was read')
  }
  const { exchange, written } = exchangeFor('GET')
  answer(exchange, 'GET', `/console/${'n'.repeat(200)}`)
  t.equal(JSON.parse(written.body!).error.message, `The console has no file "${'n'.repeat(80)}".`)
})

t.test('an unbuilt console says how to build it', async (t) => {
  const { exchange, written } = exchangeFor('GET')
  consoleAnswerer(new Map())(exchange, 'GET', '/console')
  t.match(written.status, /^404/)
  t.match(JSON.parse(written.body!).error.message, /npm run build:console/)
})

t.test('which paths are the console\'s', async (t) => {
  for (const yes of ['/console', '/console/', '/console/app.js']) t.ok(isConsolePath(yes), yes)
  for (const no of ['/consoles', '/console.html', '/v2/console', '/', '/Console']) t.notOk(isConsolePath(no), no)
})
