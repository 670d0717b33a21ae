/** Time zone names in any letter case spelled as the tz database does (src/ledger/time-zone-name.ts); links kept, not resolved. */

import t from 'tap'
import { canonicalTimeZone } from '../../src/ledger/time-zone-name.ts'

t.test('every zone Intl lists comes back exactly from lower, upper and its own case', async (t) => {
  const wrong: string[] = []
  for (const name of Intl.supportedValuesOf('timeZone')) {
    for (const typed of [name, name.toLowerCase(), name.toUpperCase()]) if (canonicalTimeZone(typed) !== name) wrong.push(`${typed} → ${canonicalTimeZone(typed)}`)
  }
  t.same(wrong, [], `${Intl.supportedValuesOf('timeZone').length} zones`)
})

t.test('links keep their own name, spelled as the tz database spells it', async (t) => {
  // The hard spellings of tzdata's backward links and renamed zones (Intl does not list links).
  const names = [
    'US/Eastern', 'US/Pacific', 'Etc/UTC', 'Etc/GMT+5', 'Etc/GMT-14', 'GMT', 'GMT0', 'UCT', 'Zulu', 'Universal', 'EST', 'EST5EDT', 'PST8PDT',
    'Asia/Kolkata', 'Asia/Calcutta', 'Europe/Kyiv', 'Europe/Kiev', 'Asia/Ho_Chi_Minh', 'Asia/Saigon', 'America/Nuuk', 'Pacific/Kanton',
    'America/Knox_IN', 'NZ-CHAT', 'Mexico/BajaNorte', 'Mexico/BajaSur', 'Chile/EasterIsland', 'Brazil/DeNoronha', 'Antarctica/McMurdo',
    'America/Argentina/ComodRivadavia', 'Antarctica/DumontDUrville', 'America/Port-au-Prince', 'Africa/Dar_es_Salaam', 'Europe/Isle_of_Man',
    'America/Port_of_Spain', 'America/Lower_Princes', 'America/Blanc-Sablon', 'Asia/Ust-Nera', 'America/Indiana/Tell_City', 'Pacific/Yap',
    'GB-Eire', 'W-SU', 'ROK', 'PRC', 'NZ', 'Canada/Newfoundland', 'America/North_Dakota/New_Salem', 'Australia/LHI',
  ]
  for (const name of names) {
    t.equal(canonicalTimeZone(name.toLowerCase()), name, `${name.toLowerCase()} → ${name}`)
    t.equal(canonicalTimeZone(name.toUpperCase()), name, `${name.toUpperCase()} → ${name}`)
  }
  t.equal(canonicalTimeZone('europe/berlin'), 'Europe/Berlin')
  t.equal(canonicalTimeZone('utc'), 'UTC')
})

t.test('a name Intl does not know is null', async (t) => {
  for (const name of ['', 'Mars/Olympus_Mons', '+02:00', '-05:00', 'Europe/Berlin\u0000', 'x'.repeat(65)]) t.equal(canonicalTimeZone(name), null, JSON.stringify(name))
})
