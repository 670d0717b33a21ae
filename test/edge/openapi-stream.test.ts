/**
 * Tests for GET /v2/stream's path item (src/edge/openapi-stream.ts) on its own: the upgrade's headers and
 * refusals (each error response asked of the document's builder with codes of that status), the x-websocket
 * extension's $refs naming the published message schemas, and the close codes and bound the server really uses.
 */
import t from 'tap'
import { errorCatalogue, type ErrorCode } from '../../src/errors.ts'
import { streamDescription, streamPathItem } from '../../src/edge/openapi-stream.ts'
import { streamNamedSchemas } from '../../src/stream/message-schemas.ts'
import { closeElsewhere, closeUnauthenticated } from '../../src/stream/messages.ts'
import { inFlightMax } from '../../src/stream/session.ts'

type Json = Record<string, any>

function built(): { item: Json, asked: [number, readonly ErrorCode[]][] } {
  const asked: [number, readonly ErrorCode[]][] = []
  const item = streamPathItem((status, codes) => {
    asked.push([status, codes])
    return { marker: `error ${status}` }
  })
  return { item, asked }
}

t.test('a GET with the four upgrade headers, required; 101 and the refusals from the document\'s error responses', async (t) => {
  const { item, asked } = built()
  t.same(Object.keys(item), ['get'])
  const get = item.get
  t.equal(get.operationId, 'getStream')
  t.equal(get.description, streamDescription)
  t.same(get.security, [{ apiKey: [] }, {}], 'the key in the header, or none (an auth message)')
  t.same(get.parameters.map((parameter: Json) => [parameter.name, parameter.in, parameter.required]), [
    ['Upgrade', 'header', true], ['Connection', 'header', true], ['Sec-WebSocket-Key', 'header', true], ['Sec-WebSocket-Version', 'header', true],
  ])
  t.equal(get.parameters[3].schema.const, '13')
  t.same(Object.keys(get.responses).sort(), ['101', '400', '401', '503'])
  t.same(get.responses[401], { marker: 'error 401' }, 'the builder\'s answer is used as is')
  for (const [status, codes] of asked) {
    t.ok(codes.length > 0, `${status}: codes named`)
    for (const code of codes) t.equal(errorCatalogue[code].status, status, `${code} is a ${status}`)
  }
  t.same(asked.map(([status]) => status), [400, 401, 503])
})

t.test('x-websocket: $refs to published message schemas, the close codes the server uses, its in-flight bound', async (t) => {
  const extension = built().item.get['x-websocket']
  const published = new Set(streamNamedSchemas.map(([name]) => `#/components/schemas/${name}`))
  t.ok(published.has(extension.clientMessages.$ref), extension.clientMessages.$ref)
  t.ok(published.has(extension.serverMessages.$ref), extension.serverMessages.$ref)
  t.equal(extension.clientMessages.$ref, '#/components/schemas/StreamClientMessage')
  t.equal(extension.serverMessages.$ref, '#/components/schemas/StreamServerMessage')
  const closeCodes = Object.keys(extension.closeCodes).map(Number).sort()
  t.same(closeCodes, [1001, closeUnauthenticated, closeElsewhere].sort(), 'shutdown, unauthenticated, and served by another node (cluster mode)')
  for (const code of closeCodes) t.ok(String(extension.closeCodes[code]).length > 10, `${code} is explained`)
  t.equal(extension.unansweredRequestsMax, inFlightMax)
})

t.test('the description names the auth message and the message schemas', async (t) => {
  t.match(streamDescription, /\{"type":"auth","key":"tu_…"\}/)
  t.match(streamDescription, /x-websocket\.clientMessages/)
  t.match(streamDescription, /x-websocket\.serverMessages/)
})
