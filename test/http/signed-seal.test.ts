/**
 * The signed seal (docs/API.md, "The seal") against a real service: every workspace has an Ed25519 key made
 * at its creation, published at GET /v2/workspace; a closed window's seal is {sha256, signature, public_key}
 * and the signature verifies with that key; scripts/verify-seal.mjs tells a forged pack (recomputed sha256)
 * from the genuine one only when given the key; the same after a restart from snapshots and from the log alone.
 */
import fs from 'node:fs'
import path from 'node:path'
import { open } from 'lmdb'
import t from 'tap'
import { adminCreateWorkspace, createAccount, postEntryOk, raiseLimits } from '../support/api.ts'
import { addLinesOk, getWindowOk, historyOf, matchOk, openWindowOk, pair, patchWindow } from '../support/recon.ts'
import { recomputeSeal } from '../support/seal-recompute.ts'
import { signatureValid, verifySealScript } from '../support/seal-signature.ts'
import { call, startTestService, type TestService } from '../support/service.ts'

let service: TestService = await startTestService()
const dataDir = service.dataDir
t.teardown(() => service.destroy())
const key = service.apiKey
await raiseLimits(service, 'default')

async function exportJson(id: string): Promise<any> {
  const reply = await call(service.baseUrl, 'GET', `/v2/reconciliations/${id}/export?format=json`, { key })
  if (reply.status !== 200) throw new Error(`export: ${reply.status} ${reply.text}`)
  return reply.body
}

async function publicKey(): Promise<string> {
  const reply = await call(service.baseUrl, 'GET', '/v2/workspace', { key })
  if (reply.status !== 200) throw new Error(`workspace: ${reply.status} ${reply.text}`)
  return reply.body.seal_public_key
}

/** Removes every snapshot of the stopped data dir, so that the next start replays the whole log. */
async function removeSnapshots(): Promise<void> {
  const root = open({ path: path.join(dataDir, 'log'), maxDbs: 8 })
  try {
    const snapshots = root.openDB<Buffer, string>({ name: 'snapshots', encoding: 'binary' })
    for (const name of [...snapshots.getKeys({})]) snapshots.removeSync(name)
    await root.flushed
  } finally {
    await root.close()
  }
}

await createAccount(service.baseUrl, key, 'assets:bank')
await createAccount(service.baseUrl, key, 'income:sales')
const sale = await postEntryOk(service.baseUrl, key, pair('assets:bank', 'income:sales', 1250), { effective_at: '2026-05-04T09:00:00Z', description: 'Invoice 7' })
const window = await openWindowOk(service.baseUrl, key, { label: 'May', accounts: ['assets:bank'], from: '2026-05-01', to: '2026-05-31', claimed_movement: 1250 })
await addLinesOk(service.baseUrl, key, window.id, [{ amount: 1250, date: '2026-05-04', reference: 'INV-7', description: 'Invoice 7' }])
await matchOk(service.baseUrl, key, window.id, { statement_lines: ['l1'], entries: [sale.id], strategy: 'amount_and_date' })
const closed = await patchWindow(service.baseUrl, key, window.id, { state: 'closed' })
if (closed.status !== 200) throw new Error(`closing: ${closed.status} ${closed.text}`)
const workspaceKey = await publicKey()

t.test('the workspace has its key from its creation; a closed window\'s seal is signed with it', async (t) => {
  t.type(workspaceKey, 'string', 'GET /v2/workspace publishes seal_public_key')
  t.equal(Buffer.from(workspaceKey, 'base64').length, 32, 'the raw 32 bytes of an Ed25519 public key, base64')
  const seal = closed.body.seal
  t.same(Object.keys(seal).sort(), ['public_key', 'sha256', 'signature'])
  t.match(seal.sha256, /^[0-9a-f]{64}$/)
  t.equal(seal.public_key, workspaceKey, 'the seal names the workspace\'s key')
  t.ok(signatureValid(seal.sha256, seal.signature, workspaceKey), 'the signature verifies against the published key')
  t.notOk(signatureValid(seal.sha256.replace(/^./, (c: string) => (c === '0' ? '1' : '0')), seal.signature, workspaceKey), 'and not for another hash')
  const pack = await exportJson(window.id)
  t.same(pack.window.seal, seal, 'the export carries the same seal')
  t.equal(recomputeSeal(pack), seal.sha256, 'the sha256 recomputes from the export')
  t.same((await getWindowOk(service.baseUrl, key, window.id)).seal, seal, 'GET reads the same seal')
})

t.test('another workspace gets a key of its own', async (t) => {
  const other = await adminCreateWorkspace(service, 'other')
  t.equal(other.status, 201)
  t.equal(Buffer.from(other.body.seal_public_key, 'base64').length, 32)
  t.not(other.body.seal_public_key, workspaceKey)
})

t.test('verify-seal.mjs: a forged pack with a recomputed sha256 agrees with itself but fails against the key', async (t) => {
  const pack = await exportJson(window.id)
  const keyFile = path.join(dataDir, 'seal-key.txt')
  fs.writeFileSync(keyFile, `${workspaceKey}\n`)
  const genuine = verifySealScript(dataDir, pack, ['--public-key', keyFile])
  t.equal(genuine.code, 0, `the genuine pack with the key (file): ${genuine.stdout}${genuine.stderr}`)
  t.match(genuine.stdout, /signature/i)
  t.equal(verifySealScript(dataDir, pack, ['--public-key', workspaceKey]).code, 0, 'the key given inline')
  const forged = structuredClone(pack)
  forged.lines[0].description = 'Invoice 7 (paid twice)'
  forged.window.seal.sha256 = recomputeSeal(forged)
  const self = verifySealScript(dataDir, forged)
  t.equal(self.code, 0, 'without a key the forged file agrees with itself')
  t.match(self.stdout, /only that the file agrees with itself/, 'and the script says that is all it checked')
  const keyed = verifySealScript(dataDir, forged, ['--public-key', keyFile])
  t.equal(keyed.code, 1, 'against the key the forgery fails')
  t.match(keyed.stdout, /MISMATCH/)
  const otherKey = (await call(service.baseUrl, 'GET', '/admin/workspaces/other', { headers: { authorization: `Bearer ${service.adminToken}` } })).body.seal_public_key
  t.equal(verifySealScript(dataDir, pack, ['--public-key', otherKey]).code, 1, 'the genuine pack against another workspace\'s key fails')
})

for (const how of ['snapshots', 'the log alone'] as const) {
  t.test(`after a restart from ${how}: the same key, the same seal, still verifying`, async (t) => {
    const before = await getWindowOk(service.baseUrl, key, window.id)
    const historyBefore = await historyOf(service.baseUrl, key, window.id)
    await service.stop()
    if (how === 'the log alone') await removeSnapshots()
    service = await startTestService({ dataDir, apiKey: key })
    t.equal(await publicKey(), workspaceKey, 'the workspace keeps its key')
    const after = await getWindowOk(service.baseUrl, key, window.id)
    t.same(after.seal, before.seal, 'the same seal, signature bytes included')
    t.same(await historyOf(service.baseUrl, key, window.id), historyBefore, 'no event added: nothing was left to sign')
    const pack = await exportJson(window.id)
    t.equal(verifySealScript(dataDir, pack, ['--public-key', workspaceKey]).code, 0, 'verify-seal.mjs with the key: MATCH')
  })
}
