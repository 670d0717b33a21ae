/** @module Compiled typebox validators that turn schema failures into request_invalid details. */

import { Compile } from 'typebox/compile'
import type { Static, TSchema } from 'typebox'
import { reject, type ErrorDetail, type Rejection } from '../../errors.js'
import { textPattern, textProblem } from './text.js'

const detailsMax = 20

/** The text pattern's failure in words: the pattern itself means little to a client. */
function messageOf(error: { keyword: string; message: string; params?: unknown }): string {
  const pattern = (error.params as { pattern?: unknown } | undefined)?.pattern
  return error.keyword === 'pattern' && pattern === textPattern ? textProblem : error.message
}

export interface Validator<T> {
  (value: unknown): { ok: true; value: T } | Rejection
  /** The schema it checks: plain JSON Schema, which the OpenAPI document publishes as is. */
  readonly schema: TSchema
}

export function validator<S extends TSchema>(schema: S): Validator<Static<S>> {
  const compiled = Compile(schema)
  const validate = (value: unknown): { ok: true; value: Static<S> } | Rejection => {
    if (compiled.Check(value)) return { ok: true, value: value as Static<S> }
    const details: ErrorDetail[] = []
    for (const error of compiled.Errors(value)) {
      details.push({ path: error.instancePath === '' ? '/' : error.instancePath, message: messageOf(error) })
      if (details.length === detailsMax) break
    }
    return reject('request_invalid', `Invalid request: ${details[0]?.path ?? '/'} ${details[0]?.message ?? ''}`.trim(), details)
  }
  return Object.assign(validate, { schema })
}
