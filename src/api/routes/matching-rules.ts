/** @module Matching rules routes (docs/API.md, Matching rules): create, list, read, change, delete a rule; auto-match a window (or its dry run). */

import { Type, type Static } from 'typebox'
import type { RuleConditions } from '../../ledger/commands.js'
import { v2Route, type V2Route } from '../route.js'
import { cursorQuery, limitQuery } from '../query.js'
import { autoMatchRequest, matchingRuleCreate, matchingRuleUpdate, ruleConditions } from '../schemas/ledger.js'
import { autoMatchDone, dryRunAutoMatch, matchingRule, matchingRulePage } from '../schemas/responses.js'
import { validator } from '../schemas/validate.js'

const ruleCreateBody = validator(matchingRuleCreate)
const ruleUpdateBody = validator(matchingRuleUpdate)
const autoMatchBody = validator(autoMatchRequest)

const cursor = cursorQuery(256)

/** The conditions as the ledger keeps them: every field present, absent ones as no condition. */
function conditionsOf(body: Static<typeof ruleConditions>): RuleConditions {
  return {
    amount: body.amount ?? 'exact',
    date_window_days: body.date_window_days ?? 0,
    // The schema lets an object hold several of equals, contains, regex (one object, so an unknown field is named alone); the ledger refuses that.
    reference: (body.reference ?? null) as RuleConditions['reference'],
    counterparty: (body.counterparty ?? null) as RuleConditions['counterparty'],
    description: body.description ?? null,
  }
}

/** A body asking for a dry run: a read (reads budget, no Idempotency-Key). Sees the body before its schema check. */
function isDryRun(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { dry_run?: unknown }).dry_run === true
}

export const matchingRuleRoutes: V2Route[] = [
  v2Route({
    method: 'POST', pattern: '/v2/matching-rules', scope: 'recon:write', summary: 'Create a matching rule',
    body: { validate: ruleCreateBody },
    errors: ['request_invalid'],
    response: { status: 201, description: 'The rule, every condition written out', schema: matchingRule },
    handle: ({ envelope, body }) => ({
      ...envelope, type: 'matching_rule.create', name: body.name, priority: body.priority, conditions: conditionsOf(body.conditions), action: body.action, strategy: body.strategy,
    }),
  }),
  v2Route({
    method: 'GET', pattern: '/v2/matching-rules', scope: 'recon:read', summary: 'List matching rules',
    query: [limitQuery, cursor],
    errors: ['request_invalid'],
    response: { status: 200, description: 'A page of rules, in creation order', schema: matchingRulePage },
    handle: ({ query }) => ({ read: { name: 'matching-rule.list', params: { limit: query.limit, cursor: query.cursor } } }),
  }),
  v2Route({
    method: 'GET', pattern: '/v2/matching-rules/:id', scope: 'recon:read', summary: 'Read a matching rule',
    errors: ['not_found'],
    response: { status: 200, description: 'The rule', schema: matchingRule },
    handle: ({ params }) => ({ read: { name: 'matching-rule.get', params: { rule: params.id } } }),
  }),
  v2Route({
    method: 'PATCH', pattern: '/v2/matching-rules/:id', scope: 'recon:write', summary: 'Change a matching rule (conditions are replaced as a whole)',
    body: { validate: ruleUpdateBody },
    errors: ['request_invalid', 'not_found'],
    response: { status: 200, description: 'The rule as changed', schema: matchingRule },
    handle: ({ envelope, body, params }) => ({
      ...envelope, type: 'matching_rule.update', rule: params.id,
      ...(body.name === undefined ? {} : { name: body.name }),
      ...(body.priority === undefined ? {} : { priority: body.priority }),
      ...(body.conditions === undefined ? {} : { conditions: conditionsOf(body.conditions) }),
      ...(body.action === undefined ? {} : { action: body.action }),
      ...(body.strategy === undefined ? {} : { strategy: body.strategy }),
    }),
  }),
  v2Route({
    method: 'DELETE', pattern: '/v2/matching-rules/:id', scope: 'recon:write', summary: 'Delete a matching rule',
    errors: ['not_found'],
    response: { status: 204, description: 'Deleted' },
    handle: ({ envelope, params }) => ({ ...envelope, type: 'matching_rule.delete', rule: params.id }),
  }),
  v2Route({
    method: 'POST', pattern: '/v2/reconciliations/:id/auto-match', scope: 'recon:write', summary: 'Apply the auto_match rules to the window (or, with dry_run, see what they would do)',
    body: { validate: autoMatchBody },
    isRead: isDryRun,
    errors: ['request_invalid', 'not_found', 'recon_state_invalid', 'amount_out_of_range'],
    response: { status: 200, description: 'The matches made, their count by rule, and the window\'s residual and state after them; with dry_run, what they would be', schema: Type.Union([autoMatchDone, dryRunAutoMatch]) },
    handle: ({ envelope, body, params }) => (body.dry_run === true
      ? { read: { name: 'match.auto.what-if', params: { window: params.id } } }
      : { ...envelope, type: 'match.auto', window: params.id }),
  }),
]
