/** @module Free text in request bodies: labels, descriptions, references, names, reasons, tags, metadata. */

import { Type, type TString } from 'typebox'

/**
 * The control characters (Unicode category Cc) other than tab: C0 U+0000–U+001F, DEL U+007F and
 * C1 U+0080–U+009F. None belongs in a label or a reference, and they do harm where the text is
 * shown again: NUL cuts strings in C tools, ESC and CSI (U+009B) drive the terminal of whoever
 * prints a log or an export, CR and LF split lines of logs and CSV exports. Tab is kept: pasted
 * tabular text carries it and it does no harm. Written with \u escapes so the JSON Schema published
 * in the OpenAPI document stays plain ASCII.
 */
const controlCharacterClass = '\\u0000-\\u0008\\u000a-\\u001f\\u007f-\\u009f'

/** The JSON Schema pattern of free text: no control character but tab. */
export const textPattern = `^[^${controlCharacterClass}]*$`

/** What a client reads in details[].message when text carries a control character. */
export const textProblem = 'must not contain control characters (U+0000–U+001F except tab, U+007F–U+009F)'

const controlCharacter = new RegExp(`[${controlCharacterClass}]`)

export function hasControlCharacter(value: string): boolean {
  return controlCharacter.test(value)
}

/** A string schema for free text: the given bounds, and no control character but tab. */
export function text(options: { readonly minLength?: number; readonly maxLength: number; readonly description?: string }): TString {
  return Type.String({ ...options, pattern: textPattern })
}

/** What a client reads in details[].message when text carries an unpaired surrogate. */
export const surrogateProblem = 'must not contain an unpaired surrogate (U+D800–U+DFFF): it is not Unicode text'

/**
 * A high surrogate not followed by a low one, or a low one not preceded by a high one. JSON's `\u`
 * escapes can write one, but it is no Unicode character: UTF-8 cannot encode it, so the log (msgpack,
 * UTF-8) would store U+FFFD in its place and the text would change at the next restart.
 */
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

export function hasLoneSurrogate(value: string): boolean {
  return loneSurrogate.test(value)
}

/**
 * Why a string is not free text, or null when it is: the one rule for text from every way in (JSON
 * bodies and WebSocket messages, query strings, CSV and statement files).
 */
export function freeTextProblem(value: string): string | null {
  if (hasControlCharacter(value)) return textProblem
  if (hasLoneSurrogate(value)) return surrogateProblem
  return null
}
