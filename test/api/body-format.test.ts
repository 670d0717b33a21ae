/** Which parser reads a body (src/api/body-format.ts): only text/csv is CSV, whatever else is declared is JSON, and so is a text/csv body that opens like a JSON object. */

import t from 'tap'
import { bodyFormatOf } from '../../src/api/body-format.ts'

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

t.test('a text/csv body is CSV unless it opens like a JSON object', async (t) => {
  const csv = (text: string | Buffer) => bodyFormatOf('text/csv', typeof text === 'string' ? Buffer.from(text) : text)
  t.equal(csv('date,amount\n2025-01-01,1\n'), 'csv')
  t.equal(csv(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('date,amount\n')])), 'csv', 'after a byte-order mark')
  t.equal(csv('\r\n\r\ndate,amount\n'), 'csv', 'after blank lines')
  t.equal(csv(''), 'csv', 'empty: the CSV parser says what is missing')
  t.equal(csv('[{"amount":1}]'), 'csv', 'a JSON array is no statement-lines body either way; CSV answers it')
  t.equal(csv('{"lines":[]}'), 'json', 'a JSON object')
  t.equal(csv(' \t\r\n {"lines":[]}'), 'json', 'after JSON whitespace')
  t.equal(csv('{not json'), 'json', 'opens like an object: json_invalid will say it is not JSON')
  t.equal(bodyFormatOf('text/csv'), 'csv', 'bytes unknown (too large): the header alone decides')
})
