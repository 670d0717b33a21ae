/** @module The canonical spelling of an IANA time zone name typed in any letter case. */

import { isValidTimeZone } from './calendar.js'

function capitalised(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1)
}

/**
 * Words the tz database spells with an inner capital (EasterIsland, DeNoronha, McMurdo,
 * ComodRivadavia, DumontDUrville); BajaNorte/BajaSur and DumontDUrville are cut into words first.
 */
const innerCapitals = /island|noronha|murdo|rivadavia|urville/
const wordsPattern = 'baja|dumont|[a-z]+'

/**
 * One segment of a name (between slashes) as the tz database spells it. Short or numbered segments
 * are upper case (UTC, US, EST5EDT, GMT+5), except Etc and Yap; in the others each word starts
 * upper case, except the short joining words (Port-au-Prince, Dar_es_Salaam, Isle_of_Man) and the
 * upper-case ones (Knox_IN, NZ-CHAT).
 */
function segmentSpelling(segment: string, segmentIndex: number): string {
  if ((segment.length <= 3 || /\d/.test(segment)) && !/etc|yap/.test(segment)) return segment.toUpperCase()
  // A fresh global expression per call: a module-level one would carry lastIndex (state) between calls.
  return segment.replace(new RegExp(wordsPattern, 'g'), (word, at: number) => {
    if ((word.length <= 2 && segmentIndex === 0) || word === 'in' || word === 'chat') return word.toUpperCase()
    if (word.length <= 2 && at > 0) return word
    return capitalised(word).replace(innerCapitals, capitalised)
  })
}

/**
 * The canonical spelling of a zone name Intl accepts, in any letter case: `europe/berlin` →
 * `Europe/Berlin`, `us/eastern` → `US/Eastern`. A link stays the name the client chose, only
 * spelled right: it is not replaced by the zone it points to, because Intl's resolution of links
 * follows ICU, which differs from the tz database and between Node versions (Node 20 turns
 * Asia/Kolkata into Asia/Calcutta and Europe/Kyiv into Europe/Kiev). This is what Temporal and
 * ECMA-402's time zone canonicalization do.
 *
 * Where Intl resolves the name to itself (every canonical zone) its spelling is taken as is. For a
 * link Intl offers no spelling, so it is rebuilt by the tz database's rules, the ones
 * temporal-polyfill uses; they spell every name of tzdata 2025b exactly (the unit test checks a
 * sample, and every zone Intl lists). Null when Intl does not know the name.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!isValidTimeZone(name)) return null
  const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone
  if (resolved.toLowerCase() === name.toLowerCase()) return resolved
  return name.toLowerCase().split('/').map(segmentSpelling).join('/')
}
