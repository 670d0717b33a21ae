/** @module trueup as a library: the HTTP service in-process (createServer) or the ledger without HTTP (Ledger). */

export { createServer, type CreateServerOptions, type EmbeddedServer } from './embedded/server.js'
export {
  Ledger, type AccountChange, type AccountInput, type CallOptions, type EntryInput, type EntryQuery, type KeyInput, type LedgerOptions,
  type LineQuery, type MatchInput, type PageQuery, type StatementFileInput, type StatementLineInput, type WindowInput, type WindowQuery, type WorkspaceChange, type WorkspaceInput,
} from './embedded/ledger.js'
export { TrueupError } from './embedded/trueup-error.js'
export { StartRefused } from './start-refused.js'
export type { ErrorCode, ErrorDetail } from './errors.js'
export { errorCatalogue } from './errors.js'
export type {
  Account, ApiKey, Balance, CreatedApiKey, Entry, HistoryEvent, LinesAdded, ListedStatementLine, Match, Page, ReconciliationWindow, StatementImport, StatementLine, Workspace,
} from './api/schemas/responses.js'
export type { Scope } from './ledger/system.js'
export type { LogLevel } from './config.js'
