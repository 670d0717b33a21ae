/** @module What every statement reader returns: statements in one shape, whatever the file format. */
import type { ErrorDetail, Rejection } from '../errors.ts'
import type { StatementFormat } from './formats.ts'

/** The format names, from the one list of formats (formats.ts). */
export type { StatementFormat }

/** A booked balance, signed like entry lines: in the account holder's favour positive. */
export interface StatementBalance {
  readonly amount: number
  readonly date: string
}

export interface Counterparty {
  readonly name: string | null
  readonly account: string | null
}

/**
 * One line of a statement. `mark` is the direction the file gives the transaction (MT940 `C`/`D`/`RC`/`RD`:
 * the original's direction); `amount` is its effect on the balance in minor units: a credit positive, a
 * debit negative, a reversal the opposite of its mark.
 */
export interface StatementEntry {
  readonly amount: number
  readonly mark: 'credit' | 'debit'
  readonly reversal: boolean
  /** The booking date, YYYY-MM-DD. */
  readonly date: string
  readonly value_date: string | null
  readonly reference: string | null
  readonly description: string | null
  readonly counterparty: Counterparty | null
}

export interface Statement {
  readonly format: StatementFormat
  readonly statement_ref: string
  /** The account identifier exactly as the file writes it (IBAN, `:25:`, BAI2 account number). */
  readonly account: string
  readonly currency: string
  readonly opening: StatementBalance
  readonly closing: StatementBalance
  /** Inclusive dates (docs/API.md, Bank statement formats). */
  readonly period: { readonly from: string, readonly to: string }
  readonly entries: readonly StatementEntry[]
}

export type ReadResult = { readonly ok: true, readonly statements: readonly Statement[] } | Rejection

/**
 * Bad input found deep inside a reader, with where it is (a line number or an XML path). Readers throw it
 * and catch it at their one public function, which answers statement_invalid: no caller ever sees it.
 */
export class FileProblem extends Error {
  constructor(readonly path: string, message: string) {
    super(message)
  }

  get detail(): ErrorDetail {
    return { path: this.path, message: this.message }
  }
}
