/**
 * The command table (src/ledger/command-table.ts): one entry per workspace command type, holding everything the
 * ledger does per type (apply, events, live changes, the accounts a stored answer shows), so a type without its
 * entry does not compile. Checked against workspaceCommandTypes (commands.ts), and by the type checker: a table
 * missing an entry is refused (the @ts-expect-error line below fails `tsc` if it ever type-checks).
 */
import t from 'tap'
import { commandTable, type CommandTable } from '../../src/ledger/command-table.ts'
import { workspaceCommandTypes, type WorkspaceCommand } from '../../src/ledger/commands.ts'
import { createWorkspaceState } from '../../src/ledger/state.ts'
import { executeWorkspace, isSlicedCommand } from '../../src/ledger/workspace.ts'

t.test('the table has one entry for every workspace command type, and no other', async (t) => {
  t.same(Object.keys(commandTable).sort(), [...workspaceCommandTypes].sort())
  for (const type of workspaceCommandTypes) {
    const behaviour = commandTable[type]
    for (const part of ['apply', 'events', 'changes', 'answerAccountSeqs'] as const) t.type(behaviour[part], 'function', `${type}: ${part}`)
  }
})

t.test('the commands run in slices are those whose entry has a sliced apply', async (t) => {
  const sliced = workspaceCommandTypes.filter((type) => commandTable[type].applyInSlices !== undefined)
  t.same(sliced.sort(), ['match.auto', 'statements.import'])
  for (const type of workspaceCommandTypes) t.equal(isSlicedCommand({ type } as WorkspaceCommand), sliced.includes(type), type)
})

t.test('a table missing an entry does not type-check', async (t) => {
  const { 'seal.key': omitted, ...rest } = commandTable
  // @ts-expect-error the entry of 'seal.key' is missing: a command type without its behaviour does not compile
  const partial: CommandTable = rest
  t.equal(Object.keys(partial).length, workspaceCommandTypes.length - 1)
  t.type(omitted.apply, 'function')
})

t.test('a command of no known type (a damaged or newer log record) stops rather than being applied', async (t) => {
  const state = createWorkspaceState('ws', 'abcdef')
  for (const type of ['account.delete', 'constructor', 'toString']) {
    const command = { type, at_ms: 0, key_id: 'key_test', visibility: null } as unknown as WorkspaceCommand
    t.throws(() => executeWorkspace(state, command), { message: `unknown command type ${JSON.stringify(type)}` }, type)
    t.equal(isSlicedCommand(command), false, `${type}: not sliced`)
  }
})
