/** The console's files under /console: index for /console and /console/, content types, cache headers, no traversal, no auth. */

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { consoleDirDefault, loadConsoleAssets } from '../../src/edge/console.ts'
import { rawRequest } from '../support/raw-http.ts'
import { call, startTestService } from '../support/service.ts'

t.test('the built console: index.html and its hashed assets, served without a key', async (t) => {
  t.ok(fs.existsSync(path.join(consoleDirDefault, 'index.html')), 'dist/console is built (npm install runs build:console)')
  const test = await startTestService()
  t.teardown(() => test.destroy())
  for (const route of ['/console', '/console/', '/console/index.html']) {
    const reply = await call(test.baseUrl, 'GET', route)
    t.equal(reply.status, 200, route)
    t.equal(reply.headers.get('content-type'), 'text/html; charset=utf-8', `${route} is HTML`)
    t.equal(reply.headers.get('cache-control'), 'no-cache', `${route} is revalidated`)
    t.match(reply.text, /<title>trueup console<\/title>/)
  }
  const index = (await call(test.baseUrl, 'GET', '/console')).text
  const script = /src="\/console\/(app-[A-Z0-9]+\.js)"/.exec(index)?.[1]
  const style = /href="\/console\/(app-[A-Z0-9]+\.css)"/.exec(index)?.[1]
  t.ok(script !== undefined && style !== undefined, 'index.html names a hashed script and stylesheet')
  const js = await call(test.baseUrl, 'GET', `/console/${script}`)
  t.equal(js.status, 200)
  t.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8')
  t.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable')
  t.notMatch(js.text, /https?:\/\/(?!www\.w3\.org)[a-z0-9.-]+\.[a-z]{2,}\/[^"'\s]*\.(js|css|woff2?)\b/i, 'the bundle loads nothing from another host')
  const css = await call(test.baseUrl, 'GET', `/console/${style}`)
  t.equal(css.headers.get('content-type'), 'text/css; charset=utf-8')
  const head = await call(test.baseUrl, 'HEAD', '/console/')
  t.equal(head.status, 200, 'HEAD answers as GET')
})

t.test('only the built files: traversal and unknown names are 404 not_found, other methods 405', async (t) => {
  const test = await startTestService()
  t.teardown(() => test.destroy())
  for (const route of ['/console/../package.json', '/console/%2e%2e/package.json', '/console/..%2fpackage.json', '/console//etc/passwd', '/console/nope.js', '/consolex']) {
    const reply = await rawRequest(test.baseUrl, 'GET', route, [])
    t.equal(reply.status, 404, route)
    t.notMatch(reply.text, /"name":\s*"trueup"|root:/, `${route} reveals no file`)
  }
  const post = await call(test.baseUrl, 'POST', '/console', { raw: 'x' })
  t.equal(post.status, 405, 'another method on a file: 405')
  t.equal(post.headers.get('allow'), 'GET, HEAD')
  t.equal(post.body.error.code, 'method_not_allowed')
})

t.test('only files of the known types are loaded; a missing build loads none', async (t) => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-console-'))
  t.teardown(() => fs.rmSync(empty, { recursive: true, force: true }))
  t.equal(loadConsoleAssets(path.join(empty, 'missing')).size, 0)
  fs.writeFileSync(path.join(empty, 'index.html'), '<p>x</p>')
  fs.writeFileSync(path.join(empty, 'secret.key'), 'not served')
  fs.mkdirSync(path.join(empty, 'sub.js'))
  t.same([...loadConsoleAssets(empty).keys()], ['index.html'], 'only files of the known types, no directories')
})
