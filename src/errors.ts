/** @module The error catalogue: every operating error the service can answer, with its HTTP status and message. */

export interface ErrorDefinition {
  readonly status: number
  readonly message: string
}

/**
 * Codes are forever: a retired code is never reused for another meaning.
 * docs/API.md lists exactly these codes (test/errors.test.ts checks both ways).
 */
export const errorCatalogue = {
  json_invalid: { status: 400, message: 'The request body is not valid JSON.' },
  request_invalid: { status: 400, message: 'The request does not match the schema.' },
  window_invalid: { status: 400, message: 'The window dates are invalid.' },
  statement_invalid: { status: 400, message: 'The statement file cannot be read.' },
  unauthenticated: { status: 401, message: 'A valid API key is required: Authorization: Bearer <key>.' },
  scope_missing: { status: 403, message: 'The API key lacks a required scope.' },
  approval_self: { status: 403, message: 'The key that requested an action cannot approve or reject it.' },
  not_found: { status: 404, message: 'No such resource.' },
  account_unknown: { status: 404, message: 'An account named in the request does not exist or is not visible to this key.' },
  method_not_allowed: { status: 405, message: 'This path does not serve that method; Allow lists the ones it serves.' },
  account_exists: { status: 409, message: 'An account with that name already exists.' },
  workspace_exists: { status: 409, message: 'A workspace with that id already exists.' },
  idempotency_conflict: { status: 409, message: 'This Idempotency-Key was used with a different request.' },
  recon_state_invalid: { status: 409, message: 'The requested change is not allowed in the window\'s current state.' },
  window_overlap: { status: 409, message: 'A window that is not closed or abandoned already covers these accounts over overlapping dates.' },
  match_already_reversed: { status: 409, message: 'This match was already reversed.' },
  line_already_matched: { status: 409, message: 'A statement line is already part of an active match.' },
  entry_already_matched: { status: 409, message: 'An entry is already part of an active match of this window.' },
  account_in_use: { status: 409, message: 'The account\'s currency cannot change once it has lines or a window.' },
  period_locked: { status: 409, message: 'An entry line falls in a closed and locked period of its account.' },
  entry_already_reversed: { status: 409, message: 'This entry was already reversed.' },
  approval_decided: { status: 409, message: 'This approval was already decided; only a pending one can be.' },
  body_too_large: { status: 413, message: 'The request body is too large.' },
  entry_unbalanced: { status: 422, message: 'The entry lines do not sum to zero.' },
  entry_outside_window: { status: 422, message: 'An entry is not inside the window\'s period or touches none of its accounts.' },
  line_outside_window: { status: 422, message: 'A statement line is dated outside the window.' },
  match_amount_mismatch: { status: 422, message: 'The statement lines and entries do not net to the same amount.' },
  match_date_mismatch: { status: 422, message: 'The statement line date differs from the entry\'s effective date.' },
  statement_unbalanced: { status: 422, message: 'A statement\'s opening balance plus its lines is not its closing balance.' },
  currency_mismatch: { status: 422, message: 'The currencies do not agree: a window\'s accounts share one currency, and a statement is in its account\'s.' },
  amount_out_of_range: { status: 422, message: 'An amount or sum would leave the safe integer range ±(2^53−1).' },
  rate_limited: { status: 429, message: 'The rate budget of this workspace is exhausted.' },
  unavailable: { status: 503, message: 'The service cannot accept this request now.' },
} as const satisfies Record<string, ErrorDefinition>

export type ErrorCode = keyof typeof errorCatalogue

export interface ErrorDetail {
  readonly path: string
  readonly message: string
}

/** A refusal of a request: the operating-error half of every outcome. Carries no I/O. */
export interface Rejection {
  readonly ok: false
  readonly code: ErrorCode
  readonly message: string
  readonly details?: readonly ErrorDetail[]
}

export function reject(code: ErrorCode, message?: string, details?: readonly ErrorDetail[]): Rejection {
  const rejection: Rejection = { ok: false, code, message: message ?? errorCatalogue[code].message }
  return details === undefined ? rejection : { ...rejection, details }
}

export function statusOf(code: ErrorCode): number {
  return errorCatalogue[code].status
}

export function errorBody(rejection: Rejection): string {
  const error: Record<string, unknown> = { code: rejection.code, message: rejection.message }
  if (rejection.details !== undefined && rejection.details.length > 0) error.details = rejection.details
  return JSON.stringify({ error })
}
