// Which routes this server has. Statements, proposals, what-if, exports and the stream are being built
// by others: the console reads the server's own OpenAPI document (no auth) and shows only what exists,
// and a 404 from such a route at call time hides it too.

import { api } from './api.js'

export async function readCapabilities() {
  let document
  try {
    document = await api('GET', '/v2/openapi.json', { key: '' })
  } catch {
    document = { paths: {} }
  }
  const paths = document.paths ?? {}
  const has = (pattern, method) => paths[pattern]?.[method] !== undefined
  const matchBody = resolve(document, paths['/v2/reconciliations/{id}/matches']?.post?.requestBody?.content?.['application/json']?.schema)
  return {
    statements: has('/v2/statements', 'post'),
    proposals: has('/v2/reconciliations/{id}/proposals', 'get'),
    batch: has('/v2/reconciliations/{id}/matches/batch', 'post'),
    // A what-if must never turn into a real match: only when the server's match body knows dry_run.
    whatIf: JSON.stringify(matchBody ?? {}).includes('"dry_run"'),
    exports: has('/v2/reconciliations/{id}/export', 'get'),
  }
}

/** A `#/components/schemas/X` reference → the schema it names. */
function resolve(document, schema) {
  const name = /^#\/components\/schemas\/(.+)$/.exec(schema?.$ref ?? '')?.[1]
  return name === undefined ? schema : document.components?.schemas?.[name]
}
