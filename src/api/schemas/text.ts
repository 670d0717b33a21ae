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
