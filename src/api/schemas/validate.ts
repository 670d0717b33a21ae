/** @module Compiled typebox validators that turn schema failures into request_invalid details. */

import { Compile } from 'typebox/compile'
import { Settings } from 'typebox/system'
import type { Static, TSchema } from 'typebox'
import { reject, type ErrorDetail, type Rejection } from '../../errors.js'
import { textPattern, textProblem } from './text.js'

const detailsMax = 20
// typebox stops collecting errors at 8 by default, which made detailsMax unreachable (a body with 12 unknown
// fields named 8). Each object with an unknown field adds one failure more, dropped below: room for those too.
// Nothing else in the service compiles typebox schemas, so the setting is this module's.
Settings.Set({ maxErrors: detailsMax * 2 })

interface SchemaError { readonly keyword: string; readonly schemaPath: string; readonly message: string; readonly params?: unknown }

/** What a client reads when a body holds a field its object does not know; the path names the field. */
export const unknownFieldProblem = 'is not a field of this object'

/**
 * An unknown field fails twice: once at the field itself (`additionalProperties: false` is the schema
 * `false` there) and once at its object, which names no field. The first is kept, the second dropped.
 */
function isObjectLevelUnknown(error: SchemaError): boolean {
  return error.keyword === 'additionalProperties'
}

/** A failure in words: the text pattern and the `false` schema of an unknown field mean little to a client. */
function messageOf(error: SchemaError): string {
  if (error.keyword === 'boolean' && error.schemaPath.endsWith('/additionalProperties')) return unknownFieldProblem
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
      if (isObjectLevelUnknown(error)) continue
      details.push({ path: error.instancePath === '' ? '/' : error.instancePath, message: messageOf(error) })
      if (details.length === detailsMax) break
    }
    return reject('request_invalid', `Invalid request: ${details[0]?.path ?? '/'} ${details[0]?.message ?? ''}`.trim(), details)
  }
  return Object.assign(validate, { schema })
}
