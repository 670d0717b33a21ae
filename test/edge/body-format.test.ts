/** Which parser reads a body (src/edge/body-format.ts): only text/csv is CSV, whatever else is declared is JSON. */

import t from 'tap'
import { bodyFormatOf } from '../../src/edge/body-format.ts'

t.test('text/csv in any case, with parameters and spaces, is CSV', async (t) => {
  for (const type of ['text/csv', 'TEXT/CSV', 'Text/Csv', 'text/csv; charset=utf-8', ' text/csv ;charset="UTF-8"', 'text/csv;header=present']) {
    t.equal(bodyFormatOf(type), 'csv', JSON.stringify(type))
  }
})

t.test('everything else is JSON: curl -d, text/plain, no header, JSON types, look-alikes', async (t) => {
  const types = [
    undefined, '', 'application/json', 'application/json; charset=utf-8', 'application/merge-patch+json',
    'application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x',
    'application/csv', 'text/csv-schema', 'text/csvx', 'application/json; note=text/csv', 'text/plain; format=text/csv',
  ]
  for (const type of types) t.equal(bodyFormatOf(type), 'json', JSON.stringify(type))
})
