/** @module The /v2 route table: every route the HTTP edge, the embedded Ledger and WebSocket requests serve. */

import type { V2Route } from './route.js'
import { accountRoutes } from './routes/accounts.js'
import { approvalRoutes } from './routes/approvals.js'
import { entryRoutes } from './routes/entries.js'
import { exceptionRoutes } from './routes/exceptions.js'
import { exportRoutes } from './routes/exports.js'
import { matchingRoutes } from './routes/matching.js'
import { matchingRuleRoutes } from './routes/matching-rules.js'
import { entryBatchRoute } from './routes/entry-batch.js'
import { reconciliationRoutes } from './routes/reconciliations.js'
import { statementRoutes } from './routes/statements.js'
import { webhookRoutes } from './routes/webhooks.js'
import { workspaceRoutes } from './routes/workspace.js'

// Order does not decide a match: the router prefers a literal segment to a parameter (/v2/entries/export is never read as /v2/entries/:id).
export const v2Routes: readonly V2Route[] = [...accountRoutes, ...exportRoutes, ...entryRoutes, entryBatchRoute, ...reconciliationRoutes, ...matchingRoutes, ...matchingRuleRoutes, ...statementRoutes, ...webhookRoutes, ...workspaceRoutes, ...approvalRoutes, ...exceptionRoutes]
