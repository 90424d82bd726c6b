import { expect } from 'chai'
import { Client, describeEachDatabase, HttpResponse, useServer } from '../support/http-harness'
import { actionBody, agentBody, conversationBody, minimalConversationBody } from '../support/http-fixtures'
import { expectList, expectProblem, expectStatus, expectViolations, ids, nextLink } from './expect-http'
import { seed, v1Routes } from './routes'

/**
 * Issue #5, part 5: a token of one organisation never reads, changes or links another's records
 * through any route, list filters included. The routes and their filters are walked from the
 * service's own OpenAPI document, so a route or an id filter added later is covered without
 * touching this file (or fails it, when it takes an id of a kind this file does not know).
 */

/** Every id an organisation's records have here: one of each kind, and a webhook delivery. */
interface Records {
  readonly actionId: string
  readonly agentId: string
  readonly conversationId: string
  readonly prospectId: string
  /** An action with a webhook trigger, linked to the agent: it has a delivery. */
  readonly webhookActionId: string
  /** A conversation made after that link: it has the delivery. */
  readonly deliveryConversationId: string
  readonly deliveryId: string
}

type Kind = 'action' | 'agent' | 'conversation' | 'prospect' | 'delivery'

const idOf = (r: Records, kind: Kind): string =>
  ({ action: r.actionId, agent: r.agentId, conversation: r.conversationId, prospect: r.prospectId, delivery: r.deliveryId })[kind]

/** The kind of record a path parameter names: `{id}` after its collection, `{actionId}` by name. */
const pathParameterKind = (template: string, name: string): Kind => {
  if (name === 'actionId') return 'action'
  const collection = template.split('/{' + name + '}')[0].split('/').pop()
  const kinds: Record<string, Kind> = {
    actions: 'action',
    'ai-agents': 'agent',
    conversations: 'conversation',
    prospects: 'prospect',
    'webhook-deliveries': 'delivery',
  }
  const kind = collection === undefined ? undefined : kinds[collection]
  if (kind === undefined) throw new Error(`${template}: no kind known for {${name}}; add it to tenancy-filters.test.ts`)
  return kind
}

/** The id a list filter takes, chosen so that its owner's list with that filter is not empty. */
const filterValue = (r: Records, parameter: string): string => {
  const values: Record<string, string> = {
    agentId: r.agentId,
    prospectId: r.prospectId,
    conversationId: r.deliveryConversationId,
    actionId: r.webhookActionId,
  }
  const value = values[parameter]
  if (value === undefined) throw new Error(`?${parameter}= takes an id of a kind tenancy-filters.test.ts does not know; add it there`)
  return value
}

const seedRecords = async (client: Client, source: string): Promise<Records> => {
  const s = await seed(client, source)
  const webhookAction = await client.post(
    '/v1/actions',
    actionBody({ name: 'Notify CRM', invocationTrigger: 'webhook.conversation_start', endpoint: { url: 'https://hooks.example.com/crm', method: 'POST' } }),
  )
  expectStatus(webhookAction, 201)
  expectStatus(await client.put(`/v1/ai-agents/${s.agentId}/actions/${webhookAction.body.id}`), 204)
  const conversation = await client.post('/v1/conversations', minimalConversationBody(s.agentId, { source, sourceType: 'TELEPHONY_A', timestampStart: '2026-03-02T10:00:00Z' }))
  expectStatus(conversation, 201)
  const deliveries = expectList(await client.get(`/v1/webhook-deliveries?conversationId=${conversation.body.id}`))
  expect(deliveries, 'the seeded conversation made one delivery').to.have.length(1)
  return { ...s, webhookActionId: webhookAction.body.id, deliveryConversationId: conversation.body.id, deliveryId: deliveries[0].id }
}

interface Operation {
  readonly method: string
  readonly template: string
  readonly queryParameters: ReadonlyArray<string>
  readonly pathParameters: ReadonlyArray<string>
}

/** Every /v1 operation of the service's OpenAPI document, with its parameter names. */
const documentedOperations = async (client: Client): Promise<Operation[]> => {
  const res = await client.get('/v1/openapi.json')
  expectStatus(res, 200)
  const document = res.body
  const deref = (value: any): any =>
    typeof value?.$ref === 'string' ? value.$ref.split('/').slice(1).reduce((node: any, key: string) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], document) : value
  const found: Operation[] = []
  for (const [template, item] of Object.entries<any>(document.paths)) {
    if (!template.startsWith('/v1/') || template === '/v1/openapi.json') continue
    for (const method of ['get', 'put', 'post', 'patch', 'delete']) {
      const operation = item[method]
      if (operation === undefined) continue
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(deref)
      found.push({
        method: method.toUpperCase(),
        template,
        queryParameters: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        pathParameters: parameters.filter((p) => p.in === 'path').map((p) => p.name),
      })
    }
  }
  return found
}

/** A valid body for the operations with an id that take one; the others take none. */
const bodyFor = (operation: Operation): { json?: unknown; contentType?: string } => {
  const route = `${operation.method} ${operation.template}`
  if (route === 'PUT /v1/actions/{id}') return { json: actionBody({ name: 'Taken over' }) }
  if (route === 'PUT /v1/ai-agents/{id}') return { json: agentBody({ name: 'Taken over' }) }
  if (operation.method === 'PATCH') return { json: { transcriptSummary: 'Taken over' }, contentType: 'application/merge-patch+json' }
  return {}
}

const fill = (template: string, value: (name: string) => string): string => template.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => value(name))

/** Everything A has, as A reads it, ETags included: B's requests must leave it exactly so. */
const snapshot = async (a: Client, r: Records) => {
  const read = async (path: string) => {
    const res = await a.get(path)
    return { status: res.status, etag: res.headers.get('etag'), body: res.body }
  }
  return {
    action: await read(`/v1/actions/${r.actionId}`),
    webhookAction: await read(`/v1/actions/${r.webhookActionId}`),
    agent: await read(`/v1/ai-agents/${r.agentId}`),
    agentActions: await read(`/v1/ai-agents/${r.agentId}/actions`),
    conversation: await read(`/v1/conversations/${r.conversationId}`),
    deliveryConversation: await read(`/v1/conversations/${r.deliveryConversationId}`),
    prospect: await read(`/v1/prospects/${r.prospectId}`),
    prospectConversations: await read(`/v1/prospects/${r.prospectId}/conversations`),
    actions: await read('/v1/actions?limit=500'),
    agents: await read('/v1/ai-agents?limit=500'),
    conversations: await read('/v1/conversations?limit=500'),
    prospects: await read('/v1/prospects?limit=500'),
    deliveries: await read('/v1/webhook-deliveries?limit=500'),
  }
}

/** 404 not_found, or a 200 list of none of `theirs` (and only the caller's own records). */
const expectNothingOf = (res: HttpResponse, theirs: ReadonlyArray<string>, ownOrgId: string, what: string): void => {
  if (res.status === 404) return expectProblem(res, 404, 'not_found')
  const list = expectList(res)
  for (const item of list) expect(item.orgId, `${what}: a record of another organisation`).to.equal(ownOrgId)
  expect(ids(list).filter((id) => theirs.includes(id)), what).to.deep.equal([])
}

describeEachDatabase('HTTP: tenancy through every route and list filter of the OpenAPI document', (database) => {
  const h = useServer(database)
  let a: Records
  let b: Records
  let operations: Operation[]
  let was: Awaited<ReturnType<typeof snapshot>>
  let theirs: string[]

  before(async function () {
    this.timeout(30_000)
    a = await seedRecords(h().a, '+14155552001')
    b = await seedRecords(h().b, '+14155552002')
    operations = await documentedOperations(h().a)
    theirs = Object.values(a)
  })

  beforeEach(async () => {
    was = await snapshot(h().a, a)
  })

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') return
    expect(await snapshot(h().a, a), 'organisation A unchanged').to.deep.equal(was)
  })

  it('the document lists the routes this file relies on', () => {
    const listed = operations.map((o) => `${o.method} ${o.template}`)
    for (const route of v1Routes) expect(listed, 'a route of routes.ts').to.include(`${route.method} ${route.label}`)
    expect(listed).to.include.members(['GET /v1/webhook-deliveries', 'POST /v1/webhook-deliveries/{id}/retry'])
  })

  it('every operation that names a record of A answers B 404 not_found, and A is unchanged', async () => {
    const named = operations.filter((o) => o.pathParameters.length > 0)
    expect(named.map((o) => `${o.method} ${o.template}`)).to.include.members([
      ...v1Routes.filter((route) => route.label.includes('{')).map((route) => `${route.method} ${route.label}`),
      'POST /v1/webhook-deliveries/{id}/retry',
    ])
    for (const operation of named) {
      const path = fill(operation.template, (name) => idOf(a, pathParameterKind(operation.template, name)))
      const res = await h().b.request(operation.method, path, bodyFor(operation))
      expectProblem(res, 404, 'not_found')
    }
  })

  it('an operation naming B\'s record and A\'s (a link either way) answers 404 and links nothing', async () => {
    const mixed = operations.filter((o) => o.pathParameters.length > 1)
    expect(mixed.map((o) => `${o.method} ${o.template}`)).to.include.members([
      'PUT /v1/ai-agents/{id}/actions/{actionId}',
      'DELETE /v1/ai-agents/{id}/actions/{actionId}',
    ])
    for (const operation of mixed) {
      for (const owner of [(index: number) => (index === 0 ? b : a), (index: number) => (index === 0 ? a : b)]) {
        const path = fill(operation.template, (name) => idOf(owner(operation.pathParameters.indexOf(name)), pathParameterKind(operation.template, name)))
        expectProblem(await h().b.request(operation.method, path, bodyFor(operation)), 404, 'not_found')
      }
    }
    expect(ids(expectList(await h().b.get(`/v1/ai-agents/${b.agentId}/actions`)))).to.have.members([b.actionId, b.webhookActionId])
  })

  it('every list filter that takes an id, given A\'s id, answers B an empty list or 404, while A gets its records', async () => {
    const filters = operations.flatMap((operation) =>
      operation.method !== 'GET' ? [] : operation.queryParameters.filter((name) => /Id$/.test(name)).map((name) => ({ operation, name })),
    )
    expect(filters.map(({ operation, name }) => `${operation.template}?${name}=`)).to.include.members([
      '/v1/conversations?agentId=',
      '/v1/conversations?prospectId=',
      '/v1/webhook-deliveries?conversationId=',
      '/v1/webhook-deliveries?actionId=',
    ])
    for (const { operation, name } of filters) {
      // A path parameter, if the list has one, names B's own record: only the filter is A's.
      const path = fill(operation.template, (p) => idOf(b, pathParameterKind(operation.template, p)))
      const target = `${path}?${name}=${encodeURIComponent(filterValue(a, name))}&limit=500`
      const ofA = expectList(await h().a.get(fill(operation.template, (p) => idOf(a, pathParameterKind(operation.template, p))) + `?${name}=${filterValue(a, name)}`))
      expect(ofA, `A's own ${operation.template}?${name}= (or the check below proves nothing)`).not.to.be.empty
      expectNothingOf(await h().b.get(target), theirs, h().b.tenant.orgId, `B's ${target}`)
    }
  })

  it('filters combining B\'s id with A\'s answer B an empty list; B\'s own filters find B\'s records', async () => {
    const empty = [
      `/v1/conversations?agentId=${b.agentId}&prospectId=${a.prospectId}`,
      `/v1/conversations?agentId=${a.agentId}&prospectId=${b.prospectId}`,
      `/v1/conversations?agentId=${a.agentId}&status=active`,
      `/v1/conversations?prospectId=${a.prospectId}&from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z`,
      `/v1/webhook-deliveries?conversationId=${a.deliveryConversationId}&actionId=${b.webhookActionId}`,
      `/v1/webhook-deliveries?conversationId=${b.deliveryConversationId}&actionId=${a.webhookActionId}`,
      `/v1/webhook-deliveries?actionId=${a.webhookActionId}&status=pending`,
      // An id of the wrong kind, and a delivery's own id as a filter, find nothing either.
      `/v1/conversations?agentId=${a.actionId}`,
      `/v1/webhook-deliveries?conversationId=${a.deliveryId}`,
    ]
    for (const target of empty) expectNothingOf(await h().b.get(target), theirs, h().b.tenant.orgId, target)

    const own = expectList(await h().b.get(`/v1/conversations?agentId=${b.agentId}&prospectId=${b.prospectId}`))
    expect(ids(own)).to.have.members([b.conversationId, b.deliveryConversationId])
    const deliveries = expectList(await h().b.get(`/v1/webhook-deliveries?conversationId=${b.deliveryConversationId}&actionId=${b.webhookActionId}`))
    expect(ids(deliveries)).to.deep.equal([b.deliveryId])
  })

  it('a cursor from A\'s list pages only B\'s records', async () => {
    for (const list of ['/v1/actions', '/v1/ai-agents', '/v1/conversations', '/v1/prospects', '/v1/webhook-deliveries', `/v1/ai-agents/${a.agentId}/actions`]) {
      const first = await h().a.get(`${list}?limit=1`)
      expectStatus(first, 200)
      const next = nextLink(first, h().baseUrl)
      if (next === null) continue
      const cursor = new URL(next).searchParams.get('cursor')
      const target = list.includes(a.agentId) ? `/v1/ai-agents/${b.agentId}/actions` : list
      expectNothingOf(await h().b.get(`${target}?cursor=${encodeURIComponent(cursor ?? '')}&limit=500`), theirs, h().b.tenant.orgId, `${target} with A's cursor`)
    }
  })

  it('POST /v1/conversations with A\'s agentId: 422 on /agentId, and B has no new conversation, prospect or delivery', async () => {
    const counts = async () => ({
      conversations: expectList(await h().b.get('/v1/conversations?limit=500')).length,
      prospects: expectList(await h().b.get('/v1/prospects?limit=500')).length,
      deliveries: expectList(await h().b.get('/v1/webhook-deliveries?limit=500')).length,
    })
    const was = await counts()
    const res = await h().b.post('/v1/conversations', conversationBody(a.agentId, { source: '+14155552099' }))
    expectViolations(res, ['/agentId'])
    expect(await counts()).to.deep.equal(was)
  })

  it('POST /v1/webhook-deliveries/{id}/retry of A\'s delivery: 404, and the delivery is as it was', async () => {
    const [delivery] = expectList(await h().a.get(`/v1/webhook-deliveries?conversationId=${a.deliveryConversationId}`))
    expectProblem(await h().b.request('POST', `/v1/webhook-deliveries/${a.deliveryId}/retry`), 404, 'not_found')
    const [after] = expectList(await h().a.get(`/v1/webhook-deliveries?conversationId=${a.deliveryConversationId}`))
    expect(after).to.deep.equal(delivery)
  })
})
