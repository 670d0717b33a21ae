/** @module Which accounts an API key may see: exact names or `prefix:*` patterns. */

/** null means every account is visible. */
export type Visibility = readonly string[] | null

export function isVisible(visibility: Visibility, accountName: string): boolean {
  if (visibility === null) return true
  for (const pattern of visibility) {
    if (pattern.endsWith(':*')) {
      if (accountName.startsWith(pattern.slice(0, -1))) return true
    } else if (pattern === accountName) {
      return true
    }
  }
  return false
}
