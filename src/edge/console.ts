/** @module The web console's static files (built into dist/console by `npm run build:console`), served under /console without auth. */

import fs from 'node:fs'
import path from 'node:path'
import { errorBody, reject, statusOf } from '../errors.js'
import type { LabeledRoute } from '../api/route.js'
import { send, type Exchange } from './http.js'

/** One label for every console file in metrics and request logs. */
export const consoleRoute: LabeledRoute = { method: 'GET', pattern: '/console' }

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
}

interface Asset {
  readonly body: string
  readonly headers: readonly (readonly [string, string])[]
  readonly contentType: string
}

/** From src/edge (tsx) or dist/edge (built), the package root is two levels up. */
export const consoleDirDefault = path.resolve(import.meta.dirname, '..', '..', 'dist', 'console')

export function isConsolePath(path: string): boolean {
  return path === '/console' || path.startsWith('/console/')
}

/**
 * Reads the built files once, at start-up: the set of servable names is exactly the directory's files,
 * so a request path is looked up, never joined onto the file system (no traversal). Hashed names
 * (app-<hash>.js) never change content: cached for a year; index.html is revalidated every time.
 */
export function loadConsoleAssets(dir: string = consoleDirDefault): ReadonlyMap<string, Asset> {
  const assets = new Map<string, Asset>()
  if (!fs.existsSync(dir)) return assets
  for (const name of fs.readdirSync(dir)) {
    const contentType = contentTypes[path.extname(name)]
    if (contentType === undefined || !fs.statSync(path.join(dir, name)).isFile()) continue
    const cache = name === 'index.html' ? 'no-cache' : 'public, max-age=31536000, immutable'
    const headers = [['cache-control', cache], ['x-content-type-options', 'nosniff']] as const
    assets.set(name, { body: fs.readFileSync(path.join(dir, name), 'utf8'), headers, contentType })
  }
  return assets
}

function sendNotFound(exchange: Exchange, message: string): void {
  const rejection = reject('not_found', message)
  send(exchange, statusOf(rejection.code), errorBody(rejection), [])
}

/** Answers GET/HEAD of /console, /console/ and /console/<file>. */
export function consoleAnswerer(assets: ReadonlyMap<string, Asset>): (exchange: Exchange, method: string, path: string) => void {
  return (exchange, method, requestPath) => {
    exchange.route = consoleRoute
    const name = requestPath === '/console' || requestPath === '/console/' ? 'index.html' : requestPath.slice('/console/'.length)
    const asset = assets.get(name)
    if (asset !== undefined && method !== 'GET') {
      return send(exchange, statusOf('method_not_allowed'), errorBody(reject('method_not_allowed', 'The console serves GET and HEAD only.')), [['Allow', 'GET, HEAD']])
    }
    if (asset !== undefined) return send(exchange, 200, asset.body, asset.headers, asset.contentType)
    if (assets.size === 0) return sendNotFound(exchange, 'The console is not built: run npm run build:console (npm install does it).')
    sendNotFound(exchange, `The console has no file ${JSON.stringify(name.slice(0, 80))}.`)
  }
}
