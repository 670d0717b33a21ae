/** @module A statement's period (docs/API.md, Bank statement formats) when the file states no from/to dates of its own. */
import { addDays } from './text.ts'

/**
 * From the day after the opening balance's date (the closing balance's date when that is not later) to
 * the closing balance's date. `previousClosingDate` is the closing date of an earlier statement of the same
 * account in the same file: this one then starts the day after it.
 */
export function periodOfBalances(openingDate: string, closingDate: string, previousClosingDate: string | null): { from: string, to: string } {
  if (previousClosingDate !== null) return { from: addDays(previousClosingDate, 1), to: closingDate }
  const dayAfterOpening = addDays(openingDate, 1)
  return { from: dayAfterOpening <= closingDate ? dayAfterOpening : closingDate, to: closingDate }
}

/** Tracks the last closing date per account while a reader walks a file's statements in order. */
export class ClosingDates {
  private readonly byAccount = new Map<string, string>()

  previous(account: string): string | null {
    return this.byAccount.get(account) ?? null
  }

  record(account: string, closingDate: string): void {
    this.byAccount.set(account, closingDate)
  }
}
