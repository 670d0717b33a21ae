/** @module TrueupError: a refusal from the error catalogue, thrown by the embedded API where HTTP would answer it. */

import type { ErrorCode, ErrorDetail, Rejection } from '../errors.js'

export class TrueupError extends Error {
  /** A code of src/errors.ts, the same one the HTTP API would answer. */
  readonly code: ErrorCode
  /** The HTTP status the service would answer with. */
  readonly status: number
  readonly details: readonly ErrorDetail[]

  constructor(rejection: Rejection, status: number) {
    super(rejection.message)
    this.name = 'TrueupError'
    this.code = rejection.code
    this.status = status
    this.details = rejection.details ?? []
  }
}
