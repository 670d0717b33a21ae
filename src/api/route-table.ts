/** @module The /v2 route table: every route the HTTP edge, the embedded Ledger and WebSocket requests serve. */

import type { V2Route } from './route.js'
import { accountRoutes } from './routes/accounts.js'
import { entryRoutes } from './routes/entries.js'
import { entryBatchRoute } from './routes/entry-batch.js'
import { reconciliationRoutes } from './routes/reconciliations.js'
import { webhookRoutes } from './routes/webhooks.js'

export const v2Routes: readonly V2Route[] = [...accountRoutes, ...entryRoutes, entryBatchRoute, ...reconciliationRoutes, ...webhookRoutes]
