/**
 * The /v2 route table (src/api/route-table.ts): every route of every route module, each once, and nothing else; no
 * method and pattern twice; every pattern under /v2 with well-formed segments and distinct parameter names; each
 * route declaring a summary and a scope (none only for GET /v2/workspace, which any key may read); GET and DELETE
 * without a body; and the router finding each route by its own path, a literal segment before a parameter.
 */
import fs from 'node:fs'
import t from 'tap'
import { v2Routes } from '../../src/api/route-table.ts'
import { Router } from '../../src/api/router.ts'
import { accountRoutes } from '../../src/api/routes/accounts.ts'
import { approvalRoutes } from '../../src/api/routes/approvals.ts'
import { entryRoutes } from '../../src/api/routes/entries.ts'
import { entryBatchRoute } from '../../src/api/routes/entry-batch.ts'
import { exceptionRoutes } from '../../src/api/routes/exceptions.ts'
import { exportRoutes } from '../../src/api/routes/exports.ts'
import { matchingRuleRoutes } from '../../src/api/routes/matching-rules.ts'
import { matchingRoutes } from '../../src/api/routes/matching.ts'
import { reconciliationRoutes } from '../../src/api/routes/reconciliations.ts'
import { statementRoutes } from '../../src/api/routes/statements.ts'
import { webhookRoutes } from '../../src/api/routes/webhooks.ts'
import { workspaceRoutes } from '../../src/api/routes/workspace.ts'
import { scopes } from '../../src/ledger/system.ts'

const modules = [accountRoutes, approvalRoutes, entryRoutes, [entryBatchRoute], exceptionRoutes, exportRoutes, matchingRuleRoutes, matchingRoutes, reconciliationRoutes, statementRoutes, webhookRoutes, workspaceRoutes]
const label = (route: { method: string; pattern: string }) => `${route.method} ${route.pattern}`

t.test('every route of every route module, each once, and nothing else', async (t) => {
  const declared = modules.flat()
  t.equal(v2Routes.length, declared.length)
  for (const route of declared) t.equal(v2Routes.filter((listed) => listed === route).length, 1, label(route))
  const files = fs.readdirSync(new URL('../../src/api/routes/', import.meta.url)).filter((name) => name.endsWith('.ts') && name !== 'entry-fields.ts')
  t.equal(files.length, modules.length, 'every file of src/api/routes with routes is read here (entry-fields.ts holds none)')
})

t.test('the declarations: unique method and pattern; patterns under /v2; a summary and a scope each', async (t) => {
  const labels = v2Routes.map(label)
  t.same(labels.filter((name, index) => labels.indexOf(name) !== index), [], 'no method and pattern twice')
  for (const route of v2Routes) {
    const segments = route.pattern.split('/').slice(1)
    t.equal(segments[0], 'v2', label(route))
    t.ok(segments.every((segment) => /^(:[a-z_]+|[a-z0-9-]+)$/.test(segment)), `${label(route)}: segments`)
    const names = segments.filter((segment) => segment.startsWith(':'))
    t.equal(new Set(names).size, names.length, `${label(route)}: parameter names distinct`)
    t.ok(route.summary.length > 0, `${label(route)}: summary`)
    if (route.method === 'GET' || route.method === 'DELETE') t.equal(route.body, undefined, `${label(route)}: no body`)
  }
  t.same(v2Routes.filter((route) => route.scope === null).map(label), ['GET /v2/workspace'], 'only the workspace read is open to any key')
  t.same(v2Routes.filter((route) => route.scope !== null && !(scopes as readonly string[]).includes(route.scope)).map(label), [], 'every scope is a known one')
})

t.test('the router finds every route by its own path; a literal segment wins over a parameter', async (t) => {
  const router = new Router(v2Routes)
  for (const route of v2Routes) {
    const path = route.pattern.replace(/:([a-z_]+)/g, (_, name: string) => `x_${name}`)
    const matched = router.match(route.method, path)
    t.equal(matched?.route, route, label(route))
    const names = [...route.pattern.matchAll(/:([a-z_]+)/g)].map(([, name]) => name)
    t.same(matched?.params, Object.fromEntries(names.map((name) => [name, `x_${name}`])), `${label(route)}: its parameters`)
  }
  t.equal(router.match('GET', '/v2/entries/export')?.route.pattern, '/v2/entries/export')
  t.equal(router.match('GET', '/v2/entries/ent_1')?.route.pattern, '/v2/entries/:id')
  t.equal(router.match('POST', '/v2/entries/batch')?.route, entryBatchRoute)
})
